"""The Lua scripts that change a session: publish, delete.

Each runs atomically on the server, so a reader never sees an artifact half published or half
deleted, and quota eviction never races another writer. All the keys a script touches share
the session's hash tag (:mod:`truncation_core_redis.keys`): the declared ones are passed as
KEYS, the others (chunk keys, numbered) are built from the session's key base, which is in the
same slot.

Numbers: sizes are subtracted as ``0 - n`` and only when not 0 (Lua writes -0 as "-0", which
HINCRBY refuses).

Out of memory: Redis refuses a script's *first* write when ``maxmemory`` is reached and then
lets the rest of the script write. So PUBLISH writes the artifact's metadata first: when
Redis is full it is refused, and nothing has changed (its quota eviction comes after, and a
script that deleted first would never be refused). DELETE deletes first, so deleting, which
makes room, always works. Scripts carry no ``#!lua`` line, so they run on Redis 6 and Valkey
alike.
"""

from __future__ import annotations

__all__ = ["DELETE", "PUBLISH"]

#: Publish an artifact whose chunks are staged (and the last one, possibly, inline).
#:
#: KEYS: meta, session, index, sizes.
#: ARGV: base, id, token, staged chunks, inline chunk, size, ttl ms (0: none), stored (ms),
#: ref document, line index, chunk size, index block, quota (0: none), gone ttl ms,
#: gone reason, inline ("1" when ARGV[5] is the last chunk).
#:
#: Returns {"published", evicted ids...}, or {"exists"} when another artifact has the id,
#: {"lost"} when a staged chunk is gone (its session was deleted, or it expired), or
#: {"too_big"} when the artifact alone is larger than the quota. A repeat of a call that
#: published (a reply lost on the way) finds the writer's token and returns {"published"}.
PUBLISH = """
local base, id, token = ARGV[1], ARGV[2], ARGV[3]
local staged = tonumber(ARGV[4])
local size = tonumber(ARGV[6])
local ttl = tonumber(ARGV[7])
local quota = tonumber(ARGV[13])
local inline = ARGV[16] == '1'
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'token') == token then return {'published'} end
  return {'exists'}
end
for i = 0, staged - 1 do
  if redis.call('EXISTS', base .. 'w:' .. token .. ':' .. i) == 0 then return {'lost'} end
end
if quota > 0 and size > quota then return {'too_big'} end
local chunks = staged
if inline then chunks = staged + 1 end
-- The first write: refused as a whole when Redis is out of memory.
redis.call('HSET', KEYS[1], 'ref', ARGV[9], 'token', token, 'size', size, 'chunks', chunks,
           'chunk_size', ARGV[11], 'block', ARGV[12], 'index', ARGV[10], 'stored', ARGV[8])
local evicted = {'published'}
if quota > 0 then
  local used = tonumber(redis.call('HGET', KEYS[2], 'used') or '0')
  while used + size > quota do
    local oldest = redis.call('ZRANGE', KEYS[3], 0, 0)
    if #oldest == 0 then break end
    local victim = oldest[1]
    local victim_size = tonumber(redis.call('HGET', KEYS[4], victim) or '0')
    local victim_meta = base .. 'a:' .. victim
    local victim_chunks = redis.call('HGET', victim_meta, 'chunks')
    if victim_chunks then
      for i = 0, tonumber(victim_chunks) - 1 do
        redis.call('UNLINK', base .. 'c:' .. victim .. ':' .. i)
      end
      redis.call('UNLINK', victim_meta)
      redis.call('SET', base .. 'gone:' .. victim, ARGV[15], 'PX', ARGV[14])
      evicted[#evicted + 1] = victim
    end
    redis.call('ZREM', KEYS[3], victim)
    redis.call('HDEL', KEYS[4], victim)
    if victim_size > 0 then redis.call('HINCRBY', KEYS[2], 'used', 0 - victim_size) end
    used = used - victim_size
  end
end
for i = 0, staged - 1 do
  local chunk = base .. 'c:' .. id .. ':' .. i
  redis.call('RENAME', base .. 'w:' .. token .. ':' .. i, chunk)
  if ttl > 0 then redis.call('PEXPIRE', chunk, ttl) else redis.call('PERSIST', chunk) end
end
if inline then
  local chunk = base .. 'c:' .. id .. ':' .. staged
  if ttl > 0 then
    redis.call('SET', chunk, ARGV[5], 'PX', ttl)
  else
    redis.call('SET', chunk, ARGV[5])
  end
end
redis.call('ZADD', KEYS[3], ARGV[8], id)
redis.call('HSET', KEYS[4], id, size)
redis.call('HINCRBY', KEYS[2], 'used', size)
redis.call('HSET', KEYS[2], 'modified', ARGV[8])
for k = 1, 4 do
  if ttl > 0 then redis.call('PEXPIRE', KEYS[k], ttl) else redis.call('PERSIST', KEYS[k]) end
end
return evicted
"""

#: Delete one artifact.
#:
#: KEYS: meta, session, index, sizes. ARGV: base, id, now (ms).
#: Returns 1 when the artifact was there, else 0.
DELETE = """
local base, id = ARGV[1], ARGV[2]
local chunks = redis.call('HGET', KEYS[1], 'chunks')
local size = tonumber(redis.call('HGET', KEYS[4], id) or '0')
if chunks then
  for i = 0, tonumber(chunks) - 1 do redis.call('UNLINK', base .. 'c:' .. id .. ':' .. i) end
  redis.call('UNLINK', KEYS[1])
end
if redis.call('ZREM', KEYS[3], id) == 1 then
  redis.call('HDEL', KEYS[4], id)
  if size > 0 then redis.call('HINCRBY', KEYS[2], 'used', 0 - size) end
end
if chunks then
  redis.call('HSET', KEYS[2], 'modified', ARGV[3])
  return 1
end
return 0
"""
