"""A downstream MCP server that breaks the protocol on request: the fault injector for the
proxy's tests. It speaks newline-delimited JSON-RPC over stdio by hand, so that it can write
what a real SDK never would."""

from __future__ import annotations

import json
import sys

TOOLS = ["echo", "garbage_then_answer", "result_not_an_object", "not_jsonrpc", "oversized",
         "duplicate_answer", "unsolicited_answer", "error_too_long", "truncated_answer",
         "truncated_answer_id_last", "malformed_answer", "truncated_log_line"]
#: The characters of the long answers (300,003 as in the report that found the fault).
LONG = 300_003


def write(raw: str) -> None:
    sys.stdout.write(raw + "\n")
    sys.stdout.flush()


def answer(request_id: object, result: object) -> None:
    write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}))


def long_text(label: str) -> str:
    line = f"{label} answer: the quick brown fox jumps over the lazy dog\n"
    return (line * (LONG // len(line) + 1))[:LONG]


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 3_000_000
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        if method == "initialize":
            answer(request_id, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                "serverInfo": {"name": "faulty-server", "version": "1"}})
        elif method == "tools/list":
            answer(request_id, {"tools": [{"name": n, "inputSchema": {"type": "object"}}
                                          for n in TOOLS]})
        elif method == "tools/call":
            name = message["params"]["name"]
            text = {"type": "text", "text": f"{name} answered"}
            if name == "garbage_then_answer":
                write("this line is not JSON at all {")
                answer(request_id, {"content": [text]})
            elif name == "result_not_an_object":
                answer(request_id, "not an object")
            elif name == "not_jsonrpc":
                write(json.dumps({"id": request_id, "result": {"content": [text]}}))
            elif name == "oversized":
                answer(request_id, {"content": [{"type": "text", "text": "z" * size}]})
            elif name == "duplicate_answer":  # the same call answered twice, long each time
                for copy in ("first", "second"):
                    answer(request_id, {"content": [{"type": "text", "text": long_text(copy)}]})
            elif name == "unsolicited_answer":  # answers to requests never made, then its own
                for stray in (987654, "never-asked"):
                    answer(stray, {"content": [{"type": "text", "text": long_text("stray")}]})
                answer(request_id, {"content": [text]})
            elif name == "error_too_long":  # a JSON-RPC error whose message is long
                write(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {
                    "code": -32603, "message": long_text("error") + "\nfatal: out of cheese"}}))
            elif name == "truncated_answer":  # the first bytes of an answer, then a newline
                whole = json.dumps({"jsonrpc": "2.0", "id": request_id,
                                    "result": {"content": [text]}})
                write(whole[:len(whole) // 2])
            elif name == "truncated_answer_id_last":  # as the TypeScript SDK orders members
                whole = json.dumps({"result": {"content": [text]}, "jsonrpc": "2.0",
                                    "id": request_id})
                write(whole[:len(whole) // 2])
            elif name == "malformed_answer":  # garbled in the middle: not JSON at all
                write(json.dumps({"jsonrpc": "2.0", "id": request_id})[:-1]
                      + ', "result": {"content": [}}')
            elif name == "truncated_log_line":  # a JSON log line cut short: not an answer
                write('{"level": 30, "msg": "starting the')
                answer(request_id, {"content": [text]})
            else:
                answer(request_id, {"content": [text]})
        else:
            write(json.dumps({"jsonrpc": "2.0", "id": request_id,
                              "error": {"code": -32601, "message": "Method not found"}}))


if __name__ == "__main__":
    main()
