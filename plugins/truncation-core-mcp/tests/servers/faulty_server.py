"""A downstream MCP server that breaks the protocol on request: the fault injector for the
proxy's tests. It speaks newline-delimited JSON-RPC over stdio by hand, so that it can write
what a real SDK never would."""

from __future__ import annotations

import json
import sys

TOOLS = ["echo", "garbage_then_answer", "result_not_an_object", "not_jsonrpc", "oversized"]


def write(raw: str) -> None:
    sys.stdout.write(raw + "\n")
    sys.stdout.flush()


def answer(request_id: object, result: object) -> None:
    write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}))


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
            else:
                answer(request_id, {"content": [text]})
        else:
            write(json.dumps({"jsonrpc": "2.0", "id": request_id,
                              "error": {"code": -32601, "message": "Method not found"}}))


if __name__ == "__main__":
    main()
