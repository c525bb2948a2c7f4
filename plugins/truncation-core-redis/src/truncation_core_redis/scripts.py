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

Foreign keys: a prefix may be shared with other data, so both scripts first check that the
session is the store's (``owned``, the rule of :func:`truncation_core_redis.keys.is_owned`:
the marker field in the session hash, or the shape of a session stored before the marker),
and change nothing in a session that is not: PUBLISH answers {"foreign"}, DELETE 0. That
check only reads, so PUBLISH's first write is still its metadata. PUBLISH marks the session
(a new one, or one stored before the marker), and evicts only index members that are
artifact ids.
"""

from __future__ import annotations

__all__ = ["DELETE", "PUBLISH"]

#: ``owned(session, index, sizes)``: "marked", "legacy" (stored before the marker), "none"
#: (no such session yet, and nothing under its index and sizes keys) or false (not the
#: store's). And ``is_artifact_id(s)``: the core's artifact id form. Types are told apart by
#: the commands the store's ACL user already has (TYPE is not among them): a command on a
#: key of another type fails (WRONGTYPE), caught with pcall.
_CHECKS = """
local function failed(reply)
  return type(reply) == 'table' and reply['err'] ~= nil
end
local function owned(session, index, sizes)
  local fields = redis.pcall('HGETALL', session)
  local first = redis.pcall('ZRANGE', index, 0, 0)
  local size = redis.pcall('HGET', sizes, 'art_')
  if failed(fields) or failed(first) or failed(size) then return false end
  if #fields == 0 then
    if #first == 0 and redis.call('EXISTS', sizes) == 0 then return 'none' end
    return false
  end
  local legacy = true
  for i = 1, #fields, 2 do
    local name, value = fields[i], fields[i + 1]
    if name == 'store' and value == 'truncation-core' then return 'marked' end
    if (name ~= 'used' and name ~= 'modified') or not string.match(value, '^%d+$') then
      legacy = false
    end
  end
  if legacy then return 'legacy' end
  return false
end
local function is_artifact_id(s)
  return #s <= 53 and string.match(s, '^art_[1-9]%d*_' .. string.rep('[0-9a-f]', 32) .. '$')
    ~= nil
end
"""

#: Publish an artifact whose chunks are staged (and the last one, possibly, inline).
#:
#: KEYS: meta, session, index, sizes.
#: ARGV: base, id, token, staged chunks, inline chunk, size, ttl ms (0: none), stored (ms),
#: ref document, line index, chunk size, index block, quota (0: none), gone ttl ms,
#: gone reason, inline ("1" when ARGV[5] is the last chunk).
#:
#: Returns {"published", evicted ids...}, or {"exists"} when another artifact has the id,
#: {"lost"} when a staged chunk is gone (its session was deleted, or it expired),
#: {"too_big"} when the artifact alone is larger than the quota, or {"foreign"} when the
#: session's keys are not the store's (nothing is changed). A repeat of a call that
#: published (a reply lost on the way) finds the writer's token and returns {"published"}.
PUBLISH = _CHECKS + """
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
local session_kind = owned(KEYS[2], KEYS[3], KEYS[4])
if not session_kind then return {'foreign'} end
local chunks = staged
if inline then chunks = staged + 1 end
-- The first write: refused as a whole when Redis is out of memory.
redis.call('HSET', KEYS[1], 'ref', ARGV[9], 'token', token, 'size', size, 'chunks', chunks,
           'chunk_size', ARGV[11], 'block', ARGV[12], 'index', ARGV[10], 'stored', ARGV[8])
if session_kind ~= 'marked' then redis.call('HSET', KEYS[2], 'store', 'truncation-core') end
local evicted = {'published'}
if quota > 0 then
  local used = tonumber(redis.call('HGET', KEYS[2], 'used') or '0')
  while used + size > quota do
    local oldest = redis.call('ZRANGE', KEYS[3], 0, 0)
    if #oldest == 0 then break end
    local victim = oldest[1]
    if not is_artifact_id(victim) then break end
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
#: Returns 1 when the artifact was there, else 0 (and 0, changing nothing, when the session
#: is not the store's).
DELETE = _CHECKS + """
local base, id = ARGV[1], ARGV[2]
local session_kind = owned(KEYS[2], KEYS[3], KEYS[4])
if session_kind ~= 'marked' and session_kind ~= 'legacy' then return 0 end
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
