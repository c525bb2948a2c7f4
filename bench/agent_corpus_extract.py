"""Extract the agent-output corpus (``bench/agent_corpus/``) from public agent trajectories.

This script documents where every case of the corpus comes from and how its keys were
chosen. It reads only trajectory and session data files (session logs, transcripts, agent
databases, trajectory JSON) out of git snapshots of public repositories, with ``git
cat-file``; it builds nothing and runs nothing from them.

For each tool output an agent received, it keeps the output when:

* the output is at least 10,000 characters (and at most :data:`MAX_CHARS`), decoded from
  its container exactly once (a JSON string, a SQLite text column), with no lone
  surrogate;
* the agent's scaffold did not already clip it (:func:`clipped`: the scaffold's own
  truncation notices, and the kind's clip sizes: a file view of 2,000 lines or with a
  line of 2,000 characters, ...);
* nothing in it looks like a secret (:func:`secret_like`), and no masking tool rewrote it;
* at least one **key** comes out of the agent's *next* actions (:func:`derive_keys`): a
  file path from the output that it then opened, an ``old_str`` it then replaced, a line
  it then viewed by number, a line or a quoted span of the output that it repeated in its
  next message or command. A key is an exact substring of the output, never seen before
  the output in the agent's context, on a line that is not repeated all over the output.

Keys are chosen from the output and the actions alone; no truncated view is computed here.

    python bench/agent_corpus_extract.py --mirror /work/.mirror

The mirror holds ``owner+name/repo`` git directories (the search tool's ``fetch``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "agent_corpus"
MIN_CHARS = 10_000
MAX_CHARS = 200_000
MAX_KEYS = 5
#: A probe found more often than this says nothing about where the agent looked.
MAX_HOLDERS = 5
#: Per source repository, and per repository and kind: keeps one project from dominating.
#: File views are by far the most common long output; other kinds are kept more freely.
MAX_PER_REPO = 60
MAX_PER_REPO_KIND = 30

#: Held out for an independent check (issue 28): never a source.
HELD_OUT_REPOS = frozenset(name.lower() for name in (
    "paul-gauthier/aider-swe-bench", "SWE-agent/SWE-agent", "princeton-nlp/SWE-agent",
    "goodsch/brain_explore", "brightdigit/MistKit", "kiliman/claude-transcript",
    "DeclanTugwell/SpotifyArchiver", "lacinoire/master-thesis",
    "fedora-copr/logdetective-sample", "mozilla/treeherder", "jenkinsci/analysis-model",
    "labri-progress/cidiff"))

#: (adapter, agent system, path pattern) per source repository.
CLAUDE_CHAT = ("claude_chat", "Claude Code", r"(^|/)logs/chat\.json$")
CRUSH = ("agent_db", "Crush", r"(^|/)\.crush/crush\.db$")
OPENCODE = ("agent_db", "OpenCode (Go)", r"(^|/)\.opencode/opencode\.db$")
SOURCES: dict[str, list[tuple[str, str, str]]] = {
    "tielec/ai-workflow-agent": [("claude_stream", "Claude Code", r"agent_log_raw\.txt$")],
    "multi-swe-bench/experiments": [("sweagent", "SWE-agent", r"\.traj$")],
    "nus-apr/auto-code-rover": [
        ("sweagent", "SWE-agent", r"^results/swe-agent-results/.*\.traj$"),
        ("acr", "AutoCodeRover", r"^results/acr-[^/]+/.*/conversation_round_\d+\.json$")],
    **{repo: [CLAUDE_CHAT] for repo in (
        "JoshuaOliphant/mochi_donut", "kesslerio/attio-mcp-server", "dirvine/saorsa-core",
        "greg-phillips/iMatrix_src", "lroy-stack/restaurant-app", "AojdevStudio/cdev",
        "EmminiX/EchoContext-Factory", "FellowDalton/infinity-claude", "FellowDalton/teamwork",
        "GiovaniOliver/livestream-copilot", "JoshuaOliphant/ClimateHome", "RyanLisse/big3",
        "SkogAI/lore", "TJProRata/GistConsole", "ThomasJMcGovern/Golfgod_v1",
        "Titan-Secure-Tech/city-of-perla", "applab-nl/dmux", "conneroisu/templar",
        "connix-labs/connix", "erewhon/medianator", "getmany-software/llm-guard",
        "jacgood/agents_testing", "jim-at-jibba/harness-lab",
        "johnmatthewtennant/mcp-voice-hooks", "mushfoo/puka", "pattern-stack/task-patterns",
        "pleelapr/a-sdlc", "siliconyouth/awe", "stevengonsalvez/claude-debugger",
        "odgsully/adhs-working", "4alvit/mcp-venus-os", "Doctacon/mcp-worktree-workflows",
        "FellowDalton/rhema", "FellowDalton/foodplan-multi-agents",
        "JoshuaOliphant/claude_code_files", "RaggioS/jcode", "Tar-ive/CADS-Visualizer",
        "YahIsKing/VES", "astrophotograph/processinator", "conneroisu/dotfiles",
        "daniifrim/10-box-os", "domykasas/automatic-fiat-stock-analyzer",
        "jacksontwodotai/GamePlanPro", "jairosoft-com/casacolinacare-v2",
        "lvalics/claude_code_stuffs", "muah1987/crypto", "pookNast/loopkit",
        "rungchan2/squeeze-lms", "stackingturtles/omikuji", "sokol-matija/email-dev-update")},
    **{repo: [CRUSH] for repo in (
        "Exa-Networks/exabgp", "dbos-inc/dbos-transact-golang", "LarsArtmann/go-filewatcher",
        "lucaschallamel/UMIG", "matdev83/portfolio-backtester", "vfarcic/dot-ai-demo",
        "nocapro/scn-ts-core", "AndresGaibor/cisco-auto", "PonuoM/CRM_Saletracker",
        "arc42/quality.arc42.org-site", "gleicon/mcpfier", "jbpratt/quay",
        "michaelgrafl/gehirn", "rnwolf/dbr", "tofunori/Albedo-analysis-CLI",
        "trungkien1992/AstraTrade-Project-Phase-2", "tuliopc23/LiqUIdify",
        "usavsolutionsinc/USAV-Orders-Backend", "aaditagrawal/slopmeter", "Qard/swift-kdl",
        "chad-russell/k", "itbaby/ribo", "nithishbn/fit-rs", "AgustinJimenez/llama_cpp_rs_chat",
        "BollineniRohith123/OpenS2S", "CoCkMelon/edu-jam4", "GreatestDisplayName/RLGymExampleBot",
        "LL-LLLu/Personal-Blog", "Starmel/OpenSuperWhisper", "aag2807/nano-bot",
        "bangarangler/burnrate", "cjoh/notes", "flawstick/medikal", "guychenya/CrushGenResAI",
        "jarx88/PoprawiaczTekstuPy", "kellen-xavier/scripts-config-windows",
        "marang/qmk_firmware", "masterofdaemon/hyperV", "michaeljjacob/dotfiles",
        "neylemkeunesp/img-solver", "pathum1/Graphlight", "remiangelo/harvestApp",
        "soh963/windows-claudia", "sternelee/lux-api", "vindepemarte/happystats-v2",
        "ylor/dotfiles")},
    **{repo: [OPENCODE] for repo in (
        "HemmeligOrg/Hemmelig.app", "eth-infinitism/account-abstraction",
        "flatironinstitute/fi-slurm-utils", "kashifkhan0771/utils", "kwam1na/athena",
        "mule-ai/mule", "navicore/flag-rs", "tuist/Noora", "aasanchez/ocpp16messages",
        "cachebag/rlox", "WismutHansen/lst", "jfabienke/mbuscrate", "pakkio/nexus",
        "DavidRothenfels/123vergabe", "sweetpeteza/roadrunner-lang",
        "truestone/university-regulations", "0xdilo/midi-animation", "BMondal-dev/unme",
        "DanielOfosu/Wallify", "DavidRyan/hooked", "DavidRyan/podgpt", "Himeyama/Scheduler",
        "Pandoks/homelab-template", "PierrunoYT/ai-fact-checker", "Zainrax/mood",
        "beyondEllie/elliecode", "falconfan123/Go-mall", "geo-bontognali/autoresponder",
        "jackbisceglia/blank", "javimosch/mufc-booking-v2", "jchidley/dotfiles",
        "kreativmonkey/homelab", "matias-ceau/ecrivez", "moresearch/swechain-mcp-server",
        "netanelbi/copilot-api", "pakkio/browser", "peder1981/futurista",
        "surajssc1232/wut_rust", "tsurutan/e2e-generator")},
}


#: The second round (issue 28, "corpus 2"): session stores that were committed with a home
#: directory or a project's own agent directory. Claude Code's session JSONL
#: (``~/.claude/projects``), Codex CLI's rollouts (``~/.codex/sessions``) and Gemini CLI's
#: saved chats (``~/.gemini/tmp/<project hash>/chats`` and ``checkpoint-*.json``).
CLAUDE_JSONL = ("claude_stream", "Claude Code", r"(^|/)\.claude/projects/.+\.jsonl$")
CODEX = ("codex", "Codex CLI", r"(^|/)\.codex/(archived_)?sessions/.+\.jsonl$")
GEMINI = ("gemini", "Gemini CLI",
          r"(^|/)\.gemini/tmp/.+/(chats/session-[^/]+|checkpoint[^/]*)\.json$")
SOURCES_2: dict[str, list[tuple[str, str, str]]] = {
    **{repo: [CODEX] for repo in (
        "0h-n0/local-voice-assistant-codex", "242282218/blog-nevigation",
        "493-Property-Estimator/Capstone-Test-Repo", "7567491/Feishu_ClaudeCode",
        "AaronBakerDev/knearme-platform", "ADIOCLASSMATE/dotfile", "adisagar2003/MoodWeave",
        "Agencia-Vibe-Code/new_template", "AidenPeacock/ECE_493_Lab_2",
        "akhileswar18/behaviour_lab", "akinori-seri-sdcj/health_report_ocr",
        "albertoviceconti/advanced-dusseldorfer-calculator", "andress722/CRM_ADMIN",
        "aneesh199608/dslint", "ArnaudDeploiement/lms-go-spec-driven-dev", "arnemohr/funke",
        "atharva-sardar02/ad-mint-ai", "augustoFranke/Ta-la", "Azilone/personalize.design-app",
        "BearTDK6/ba-pro", "benandfrank/galileo-framework-ways-of-work", "blubber/dotfiles",
        "borfast/cooking-times", "brianlan/paper2md", "bricerising/specify-poker",
        "bumpy-croc/ai-trading-bot", "carlo-spada/xentri", "che-yjwj/platform_architect",
        "chunrui-qashier/md-http-server", "CodeGandee/auto-quantize-model",
        "CodeGandee/llm-perf-opt", "cosmos-makers/generative-kiosk",
        "cotyledonlab/meal-planner-demo", "darkov19/motaba-masala", "Dashperf/WinCamStream",
        "ddxxlao/ktransformers", "Deland78/Pacha-Story", "delorenj/CommonProject",
        "devangshupandey2025-stack/DevSage", "deweyou/design", "DimiCheck/dimicheck4",
        "doubleeezin-ctrl/Interminal", "doudouqie66/CommonTools", "dreyer-thomas/TravelBlogs",
        "dreyer-thomas/TravelPlan", "dsissoko/atelier", "EdofEngland/code_butler",
        "EdouardZemb/test-framework", "Elektriker-Edgar/PV-Projekt", "emd5-afk/BIME_U01",
        "EricOo0/stock-trading-platform", "Fatdevil/GolfIQ-YOLO", "Fegor/Basic-Rootkit",
        "flamasz/nexus", "FlavioHeartnet/mobileappinvestiment", "Gino-Loja/sistema-kardex",
        "gitcoder27/life-os", "Gordondalos/mail-agent", "haench/JulesJenga",
        "hawkli-1994/dazi-skill", "HBClab/boost-act", "HCHI-KU/gflownet",
        "hericlibong/SassyAI", "hindermath/TinyCalc", "Hiroya20040928/unitree-A1",
        "Hoper-J/cpolar-connect", "huwangtao123/smartclaw", "IsaacIndex/qna-data-dashboard",
        "ivanma9/ship", "Jackela/AI-Recruitment-Clerk", "jacmanh/taskly",
        "jarvis-systems/brain-node", "JaydenXsoe/ocodex", "jeremiahsotis/moneyshyft",
        "jeremiahsotis/svdp-resources", "kasumigaokasama/manga", "KJ21-ENG/autopilot_reels",
        "Kocoro-lab/Shannon", "KongJin/JG", "Kooksun/Lotto645", "Kooksun/RPS_3",
        "kozakana/ticker-box", "ksuke0322/eol-timeline", "kv-248/TeacherEvaluation",
        "LeroySalih/planner-004", "lewislpz/CartApp", "lewislpz/Catan", "Maidang1/madinah",
        "MaksimKravchuk/brain_buddy", "maorenxin/CopyTrading", "marios390/personapirepo",
        "matthewlai12/ece493-cms", "mavi78/bayan-kuaforu-1", "memrynote/memrynote",
        "MikeLockz/el-dorado-tanstack", "minsuk1012/VitalConnection",
        "mncuchiinhuttt/exact2026", "Monotoba/OpenPrintKit", "MoonLadderStudios/MoonMind",
        "msrnic/ECE493Group19", "MythologIQ/Zo-Qore", "nate-hart-di/auto-sbm",
        "nate-hart-di/di-form-buddy", "neozhu/face-metric", "NotNotNothing/B1Notice",
        "Nuttapong14/crypto-wallet", "Ogekuri/G", "Ogekuri/useReq",
        "OhmChannachot/spec-kit-ohm", "PantherianCodeX/udocket.com",
        "pierrickmartino/blockbuilders.tech.bmad", "pjw7536/template2",
        "pkbatx/alert_framework", "pratham124/Lab2",
        "Prometheus-AGS/prometheus-parking-lot-rs",
        "PT-Parker/Best-Buying-and-Selling-Timing-System",
        "Python-AI-Solutions/agentic-neurodata-conversion", "Quelklef/shell-ws",
        "R1DDL30510/Init-", "Redaration/praxis3", "Satyam-stysh/Phishing_url_cheaker",
        "Shashank-Shukla/Manobhav", "ShocKwav3/MultifunctionalKnob", "SproutSeeds/coda",
        "SunQiangLoop/OA_Worker", "ThalesMMS/vLLM-config",
        "TripleSky1564/2025-SMHRD-IS-CLOUD-3-Cloud_Bridge-project",
        "WarrickSmith/WS-Portfolio-New", "YPS-Tool/World_time_conference")},
    **{repo: [CLAUDE_JSONL] for repo in (
        "4thehalibit/omarchy-backup", "7567491/main", "adrianstanca1/vps-config",
        "aistrad/work", "gouchan/agent-swarm-config", "Mkid095/vps-system",
        "Quiago/tripolar-chat", "Schofield90/atlas-fitness-onboarding")},
    **{repo: [GEMINI] for repo in (
        "brexp/infra", "Jinstronda/my-cursor-stack")},
    **{repo: [CLAUDE_JSONL, CODEX] for repo in (
        "olivia215215/cabinet-governance",
        "Society-for-AI-Collab-Studies-SACS/Echo-Community-Toolkit-Monorepo",
        "Xu-Wentao/dotfile")},
    **{repo: [CLAUDE_JSONL, GEMINI] for repo in (
        "Tar-ive/brain-system",)},
}
#: Round 2 keeps, from the agent systems already in the corpus, only the kinds that round 1
#: left thin; from an agent system new to the corpus, every kind. Per source repository at
#: most :data:`MAX_PER_REPO_2` cases and :data:`MAX_PER_REPO_KIND_2` of one kind, so that
#: the additions spread over repositories (and so over both halves).
THIN_KINDS = frozenset(("package_install", "build", "git", "grep", "json_api", "test_run"))
NINE_KINDS = frozenset((*THIN_KINDS, "file_view", "code_search", "directory_listing"))
MAX_PER_REPO_2 = 40
MAX_PER_REPO_KIND_2 = 8
#: Kinds of round 2 renamed to one of the nine: a linter's or type checker's report is a
#: static check with a compiler's diagnostics (file:line: message), kept as a build.
KIND_MERGES_2 = {"lint": "build"}


# --------------------------------------------------------------------------- git access

class Snapshot:
    """Read-only access to one fetched repository's git directory."""

    def __init__(self, mirror: Path, repo: str) -> None:
        self.repo = repo
        self.git_dir = mirror / repo.replace("/", "+", 1) / "repo"

    def exists(self) -> bool:
        return self.git_dir.is_dir()

    def git(self, *args: str) -> bytes:
        return subprocess.run(["git", "--git-dir", str(self.git_dir), *args],
                              capture_output=True, check=False).stdout

    def blobs(self, pattern: str) -> list[tuple[str, str]]:
        """(blob, path) of every version, in any commit, of the files matching *pattern*;
        blobs the snapshot lacks (its largest files may be absent) are skipped."""
        out = self.git("rev-list", "--all", "--objects", "--missing=allow-any").decode()
        found: dict[str, str] = {}
        regex = re.compile(pattern)
        for line in out.splitlines():
            blob, _, path = line.partition(" ")
            if path and regex.search(path) and blob not in found:
                found[blob] = path
        present = self.present(found)
        return sorted((b, p) for b, p in found.items() if b in present)

    def present(self, objects: Iterable[str]) -> set[str]:
        listing = "\n".join(objects) + "\n"
        out = subprocess.run(["git", "--git-dir", str(self.git_dir), "cat-file",
                              "--batch-check=%(objectname) %(objecttype)"],
                             input=listing.encode(), capture_output=True, check=False).stdout
        return {line.split()[0] for line in out.decode().splitlines()
                if line.endswith(" blob")}

    def has(self, obj: str) -> bool:
        return bool(self.present([obj]))

    def read(self, blob: str) -> bytes:
        return self.git("cat-file", "blob", blob)

    def commit_of(self, blob: str, path: str) -> str:
        """The oldest commit whose tree holds *blob* at *path*."""
        for commit in reversed(self.commits_touching(path)):
            if self.git("rev-parse", "--verify", "--quiet",
                        f"{commit}:{path}").decode().strip() == blob:
                return commit
        return ""

    def commits_touching(self, path: str) -> list[str]:
        return self.git("log", "--all", "--full-history", "--format=%H", "--",
                        path).decode().split()

    def blob_at(self, commit: str, path: str) -> str | None:
        out = self.git("rev-parse", "--verify", "--quiet", f"{commit}:{path}").decode().strip()
        return out if out and self.has(out) else None


# --------------------------------------------------------------------------- normalised steps
# A trajectory becomes a list of steps, each a dict with "type": "text" (what the agent
# wrote), "call" (a tool call: id, name, input) or "result" (id, content), and a "thread"
# (a subagent's steps are apart from the main agent's).


def _jsonl(raw: str) -> Iterator[Any]:
    for line in raw.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except ValueError:
                continue


def _result_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict) \
            and content[0].get("type") == "text" and isinstance(content[0].get("text"), str):
        return str(content[0]["text"])
    return None


def claude_steps(events: Iterable[Any]) -> list[dict[str, Any]]:
    """Claude Code's transcript events (session JSONL, ``--output-format stream-json``, or
    the hooks' ``logs/chat.json`` copy of the transcript)."""
    steps: list[dict[str, Any]] = []
    seen: set[str] = set()
    for event in events:
        if not isinstance(event, dict) or event.get("type") not in ("user", "assistant"):
            continue
        message = event.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            continue
        thread = str(event.get("parent_tool_use_id") or "")
        if event.get("isSidechain"):
            thread = "sidechain"
        for item in message["content"]:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "text" and event["type"] == "assistant":
                steps.append({"type": "text", "text": str(item.get("text") or ""),
                              "thread": thread})
            elif kind == "thinking":
                steps.append({"type": "text", "text": str(item.get("thinking") or ""),
                              "thread": thread})
            elif kind == "tool_use":
                if item.get("id") in seen:
                    continue
                seen.add(str(item.get("id")))
                steps.append({"type": "call", "id": item.get("id"), "name": item.get("name"),
                              "input": item.get("input"), "thread": thread})
            elif kind == "tool_result":
                key = "r:" + str(item.get("tool_use_id"))
                if key in seen:
                    continue
                seen.add(key)
                steps.append({"type": "result", "id": item.get("tool_use_id"),
                              "content": _result_text(item.get("content")),
                              "is_error": bool(item.get("is_error")), "thread": thread})
    return steps


def agent_db_steps(path: str) -> list[dict[str, Any]]:
    """Crush's and OpenCode's (Go) SQLite session store: ``messages.parts``."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT session_id, parts FROM messages ORDER BY session_id, created_at, rowid"
        ).fetchall()
    finally:
        connection.close()
    steps: list[dict[str, Any]] = []
    for session, parts_json in rows:
        try:
            parts = json.loads(parts_json)
        except ValueError:
            continue
        for part in parts if isinstance(parts, list) else []:
            data = part.get("data") or {}
            kind = part.get("type")
            if kind in ("text", "reasoning"):
                text = data.get("text") or data.get("thinking") or ""
                steps.append({"type": "text", "text": str(text), "thread": session})
            elif kind == "tool_call":
                raw = data.get("input")
                try:
                    value = json.loads(raw) if isinstance(raw, str) else raw
                except ValueError:
                    value = raw
                steps.append({"type": "call", "id": data.get("id"), "name": data.get("name"),
                              "input": value, "thread": session})
            elif kind == "tool_result":
                content = data.get("content")
                steps.append({"type": "result", "id": data.get("tool_call_id"),
                              "content": content if isinstance(content, str) else None,
                              "is_error": bool(data.get("is_error")), "thread": session})
    return steps


_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
SWE_AGENT_COMMANDS = frozenset((
    "open", "goto", "scroll_down", "scroll_up", "create", "edit", "submit", "search_dir",
    "search_file", "find_file", "str_replace_editor", "find_class", "find_method"))


def sweagent_steps(trajectory: dict[str, Any]) -> list[dict[str, Any]]:
    """SWE-agent's ``.traj``: ``history`` is what the model was sent and wrote; an
    observation is the user message that follows an assistant message."""
    steps: list[dict[str, Any]] = []
    history = trajectory.get("history") or []
    number = 0
    for index, message in enumerate(history):
        if message.get("is_demo") or message.get("agent", "primary") != "primary":
            continue
        role = message.get("role")
        content = message.get("content")
        if not isinstance(content, str):
            continue
        if role == "assistant":
            action = message.get("action")
            thought = message.get("thought")
            if not isinstance(action, str):
                blocks = _FENCE.findall(content)
                action = blocks[-1].strip() if blocks else ""
                thought = content[: content.rfind("```" + action[:1])] if blocks else content
            number += 1
            steps.append({"type": "text", "text": str(thought or ""), "thread": ""})
            word = (action.split() or [""])[0]
            # SWE-agent's interface is a shell with commands of its own: a plain shell
            # command is a call of its bash, a special command a call of that command.
            name = word if word in SWE_AGENT_COMMANDS else "bash"
            steps.append({"type": "call", "id": f"step{number}", "name": name,
                          "input": {"command": action}, "thread": ""})
        elif role in ("user", "tool") and index > 0 and steps and steps[-1]["type"] == "call":
            steps.append({"type": "result", "id": steps[-1]["id"], "content": content,
                          "is_error": False, "thread": ""})
        elif role == "user":
            steps.append({"type": "text", "text": content, "thread": "", "context": True})
    return steps


_ACR_RESULT = re.compile(r"Result of (\w+)\((.*?)\):\n", re.DOTALL)


def acr_steps(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """AutoCodeRover's ``conversation_round_N.json``: a search API's result is a user
    message ``Result of search_x(args):``; the agent asks for searches in its replies."""
    steps: list[dict[str, Any]] = []
    for number, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, str):
            continue
        match = _ACR_RESULT.match(content)
        if message.get("role") == "user" and match:
            # The call was written in an earlier reply, before this result was seen.
            steps.append({"type": "call", "id": f"m{number}", "name": match.group(1),
                          "input": {"args": match.group(2)}, "thread": "", "batched": True})
            steps.append({"type": "result", "id": f"m{number}", "content": content,
                          "is_error": False, "thread": ""})
        elif message.get("role") == "assistant":
            steps.append({"type": "text", "text": content, "thread": ""})
        else:
            steps.append({"type": "text", "text": content, "thread": "", "context": True})
    return steps


_SHELL_WRAPPERS = (["bash", "-lc"], ["bash", "-c"], ["sh", "-c"], ["sh", "-lc"], ["zsh", "-lc"],
                   ["zsh", "-c"])


def _shell_command(command: Any) -> Any:
    """Codex's shell call as one command line: the script of ``bash -lc <script>``, else the
    argument vector joined as a shell would read it."""
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[:2] in _SHELL_WRAPPERS:
            return command[2]
        return shlex.join(command)
    return command


def _patch_edit(patch: str) -> dict[str, str]:
    """Codex's ``apply_patch`` input as an edit: the lines it removes or keeps as context
    (``old_string``) and the lines it adds or keeps (``new_string``), without their
    one-character prefix, and the file it names."""
    old: list[str] = []
    new: list[str] = []
    path = ""
    for line in patch.splitlines():
        header = re.match(r"\*\*\* (?:Update|Add|Delete) File: (.+)", line)
        if header:
            path = path or header.group(1).strip()
        elif line.startswith(("***", "@@")):
            continue
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" "):
            old.append(line[1:])
            new.append(line[1:])
    return {"file_path": path, "old_string": "\n".join(old), "new_string": "\n".join(new)}


def _codex_text(content: Any, kinds: tuple[str, ...]) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text") or "") for part in content
                         if isinstance(part, dict) and part.get("type") in kinds)
    return ""


def codex_steps(events: Iterable[Any]) -> list[dict[str, Any]]:
    """Codex CLI's rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): the
    response items the model was sent and wrote, either one per line (the first rollouts)
    or as the ``payload`` of a ``response_item`` line. A tool's output is the
    ``function_call_output`` string the model was given (a JSON object ``{"output": ...,
    "metadata": ...}`` in the first versions, ``Exit code: ...\nOutput:\n...`` later)."""
    steps: list[dict[str, Any]] = []
    for event in events:
        if not isinstance(event, dict):
            continue
        if event.get("type") == "response_item":
            item = event.get("payload")
        elif "payload" not in event and "type" in event:
            item = event
        else:
            continue
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "message":
            if item.get("role") == "assistant":
                steps.append({"type": "text", "thread": "",
                              "text": _codex_text(item.get("content"), ("output_text",))})
            else:  # the user's prompt, the instructions, the environment: context only
                steps.append({"type": "text", "thread": "", "context": True,
                              "text": _codex_text(item.get("content"),
                                                  ("input_text", "output_text"))})
        elif kind == "reasoning":
            steps.append({"type": "text", "thread": "",
                          "text": _codex_text(item.get("summary"), ("summary_text",))})
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            name = str(item.get("name") or ("shell" if kind == "local_shell_call" else ""))
            raw = item.get("arguments") if kind == "function_call" else item.get("input")
            if kind == "local_shell_call":
                action = item.get("action") or {}
                value: Any = {"command": action.get("command")}
            elif kind == "custom_tool_call":
                value = _patch_edit(raw) if name == "apply_patch" and isinstance(raw, str) \
                    else {"input": raw}
            else:
                try:
                    value = json.loads(raw) if isinstance(raw, str) else raw
                except ValueError:
                    value = {"arguments": raw}
            if isinstance(value, dict) and "cmd" in value and "command" not in value:
                # exec_command's command line, named as every other shell names it
                value = {("command" if field == "cmd" else field): item
                         for field, item in value.items()}
            if isinstance(value, dict) and "command" in value:
                value = {**value, "command": _shell_command(value["command"])}
            if name == "apply_patch" and isinstance(value, dict) \
                    and isinstance(value.get("input"), str):
                value = _patch_edit(value["input"])
            steps.append({"type": "call", "id": item.get("call_id") or item.get("id"),
                          "name": name, "input": value, "thread": ""})
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if isinstance(output, dict):  # {"content": ..., "success": ...} in a few versions
                output = output.get("content")
            steps.append({"type": "result", "id": item.get("call_id"), "thread": "",
                          "content": output if isinstance(output, str) else None,
                          "is_error": False})
    return steps


def _gemini_output(response: Any) -> str | None:
    """The string a Gemini CLI tool gave the model: its function response's ``output``."""
    if isinstance(response, dict) and isinstance(response.get("output"), str):
        return str(response["output"])
    return None


def gemini_steps(data: Any) -> list[dict[str, Any]]:
    """Gemini CLI's saved conversations: a chat session (``chats/session-*.json``: messages
    of type ``user`` and ``gemini``, each ``gemini`` message with its thoughts, its text and
    its tool calls, each call with the function response the model was given) or a
    checkpoint (``checkpoint-*.json``: the API history, ``Content`` objects with ``text``,
    ``functionCall`` and ``functionResponse`` parts)."""
    steps: list[dict[str, Any]] = []
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        for message in data["messages"]:
            if not isinstance(message, dict):
                continue
            content = message.get("content")
            text = content if isinstance(content, str) else _codex_text(content, ("text",))
            if message.get("type") != "gemini":
                steps.append({"type": "text", "text": text, "thread": "", "context": True})
                continue
            for thought in message.get("thoughts") or []:
                if isinstance(thought, dict):
                    steps.append({"type": "text", "thread": "", "text": "\n".join(
                        str(thought.get(f) or "") for f in ("subject", "description"))})
            if text:
                steps.append({"type": "text", "text": text, "thread": ""})
            calls = [c for c in message.get("toolCalls") or [] if isinstance(c, dict)]
            for call in calls:
                steps.append({"type": "call", "id": call.get("id"), "name": call.get("name"),
                              "input": call.get("args"), "thread": ""})
            for call in calls:
                for part in call.get("result") or []:
                    response = (part.get("functionResponse") or {}) if isinstance(
                        part, dict) else {}
                    steps.append({"type": "result", "id": call.get("id"), "thread": "",
                                  "content": _gemini_output(response.get("response")),
                                  "is_error": call.get("status") == "error"})
        return steps
    if not isinstance(data, list):
        return steps
    pending: dict[str, list[str]] = defaultdict(list)
    number = 0
    for content in data:
        if not isinstance(content, dict):
            continue
        role = content.get("role")
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("text"), str):
                steps.append({"type": "text", "text": part["text"], "thread": "",
                              "context": role != "model"})
            elif isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                number += 1
                ident = str(call.get("id") or f"{call.get('name')}#{number}")
                pending[str(call.get("name"))].append(ident)
                steps.append({"type": "call", "id": ident, "name": call.get("name"),
                              "input": call.get("args"), "thread": ""})
            elif isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"]
                queue = pending[str(response.get("name"))]
                ident = str(response.get("id") or (queue[0] if queue else ""))
                if ident in queue:
                    queue.remove(ident)
                steps.append({"type": "result", "id": ident, "thread": "", "is_error": False,
                              "content": _gemini_output(response.get("response"))})
    return steps


# --------------------------------------------------------------------------- checks

_TERMINATOR = re.compile(r"\r\n|\n|\r")


def lines_of(text: str) -> list[str]:
    """Lines as truncation-core numbers them (``\\r\\n``, ``\\n``, a lone ``\\r``)."""
    lines = _TERMINATOR.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


#: Truncation notices of the scaffolds sampled (Claude Code, Crush/OpenCode, SWE-agent,
#: OpenHands, mini-swe-agent, AutoCodeRover's summarised search results).
CLIP_NOTICES = (
    "<response clipped>", "[... truncated", "... truncated", "[truncated]", "Output too long",
    "Observations should not exceed", "lines truncated]", "lines truncated ...",
    "Results are truncated", "There are more than 1000 files", "File has more lines",
    "output was too long", "Output truncated", "output truncated", "characters truncated",
    "exceeds maximum allowed tokens", "Please narrow your search",
    "They appeared in the following files", "[Observation truncated", "<output_head>",
    "too long to display", "Output was truncated",
    # Codex CLI (head and tail of a long exec output; later, a token budget), Gemini CLI
    # (a file read past its line limit), Claude Code (an output kept in a file instead).
    "[... omitted ", "Total output lines:", "tokens truncated", "chars truncated",
    "content has been truncated", "Output too large")

VIEW_TOOLS = {"Read", "view", "View", "open", "read_file", "ReadFile", "read_many_files"}


def clipped(output: str, tool: str) -> str | None:
    """Why the scaffold may have clipped *output* already, or None."""
    for notice in CLIP_NOTICES:
        if notice in output:
            return f"notice {notice!r}"
    lines = lines_of(output)
    if tool in VIEW_TOOLS:
        if len(lines) >= 2000:
            return "a file view of 2,000 lines (the view tools' default limit)"
        if any(len(line) >= 2000 for line in lines):
            return "a file view with a line of 2,000 characters (clipped by the view tools)"
    if 29_900 <= len(output) <= 30_100:
        return "about 30,000 characters, the shell tools' output limit"
    inner = _codex_exec_output(output)
    if inner is not None and 9_900 <= len(inner.encode("utf-8")) <= 10_400:
        return "about 10 KiB of exec output, the first Codex CLI's limit"
    return None


def _codex_exec_output(output: str) -> str | None:
    """The command output inside the first Codex CLI's ``{"output": ..., "metadata": ...}``."""
    if not output.startswith('{"output":'):
        return None
    try:
        value = json.loads(output)
    except ValueError:
        return None
    return value.get("output") if isinstance(value, dict) and isinstance(
        value.get("output"), str) else None


_SECRET = re.compile(
    r"AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35}|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}"
    r"|\[REDACTED|\*\*\*REDACTED|<REDACTED|sshpass\s+-p|PGPASSWORD=|MYSQL_PWD="
    r"|://[^/\s:@]+:[^@\s/]{6,}@"
    r"|(?i:(?:api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|password|passwd)"
    r"[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9_\-+/=.]{12,})")


def secret_like(output: str) -> str | None:
    match = _SECRET.search(output)
    return match.group(0)[:12] + "..." if match else None


# --------------------------------------------------------------------------- kinds

_SHELL = {"Bash", "bash", "shell", "execute_command", "run_command", "exec_command",
          "shell_command", "local_shell", "run_shell_command"}
_TEST = re.compile(
    r"\b(pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|ava|playwright test|cypress run"
    r"|go test|cargo (?:test|nextest)|mvn(?:w)?\b.*\btest|gradle(?:w)?\b.*\btest|rspec|phpunit"
    r"|ctest|(?:npm|pnpm|yarn|bun)(?: run)? test(?::\S+)?|deno test|swift test|dotnet test"
    r"|bin/test|runtests|manage\.py test|make (?:test|check))\b")
_INSTALL = re.compile(
    r"\b((?:npm|pnpm|yarn|bun) (?:install|i|ci|add)|pip3? install|uv (?:sync|pip install|add)"
    r"|poetry (?:install|add|lock)|apt(?:-get)? install|brew install|cargo (?:add|fetch|install)"
    r"|go (?:mod (?:download|tidy)|get)|gem install|bundle install|composer install"
    r"|conda install|mamba install)\b")
_BUILD = re.compile(
    r"\b((?:npm|pnpm|yarn|bun) run (?:build|compile|typecheck|type-check|tsc)\S*|tsc\b|cargo "
    r"(?:build|check|clippy)|go (?:build|vet)|make\b|cmake|mvn(?:w)? .*(?:compile|package|"
    r"install)|gradle(?:w)? .*(?:build|assemble)|javac|gcc|g\+\+|clang|next build|vite build"
    r"|webpack|docker (?:build|compose build)|swift build|xcodebuild|dotnet build)")
_GIT = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?(log|diff|show|blame|status|shortlog)\b")
_GREP = re.compile(r"(^|[|;&(\s])(grep|egrep|rg|ag|ack|git grep)\s")
_LIST = re.compile(r"(^|[|;&(\s])(ls|find|tree|du|fd|exa|eza)(\s|$)")
_VIEW = re.compile(r"^\s*(cat|head|tail|sed -n|nl|less|bat|awk 'NR)\b")
_API = re.compile(r"\b(curl|wget -qO-|http |httpie|gh api|gh (?:pr|issue|run) view|aws |gcloud "
                  r"|kubectl get|jq\b|psql|sqlite3|mongo)")
_LINT = re.compile(r"\b(eslint|ruff|flake8|pylint|mypy|pyright|golangci-lint|shellcheck"
                   r"|(?:npm|pnpm|yarn|bun) run lint|biome)\b")


def _looks_json(text: str) -> bool:
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def classify(tool: str, command: str, output: str) -> tuple[str, str] | None:
    """(kind, the tool name as the library would see it), or None for a tool whose output
    is not a tool result this corpus is about (a subagent's report, a todo list, an edit's
    confirmation)."""
    lowered = tool.lower()
    if tool in VIEW_TOOLS:
        return "file_view", "read_file"
    if tool in ("Task", "TodoWrite", "Write", "Edit", "MultiEdit", "write", "edit", "patch",
                "NotebookEdit", "ExitPlanMode", "agent", "Agent", "create", "edit_file",
                "str_replace_editor", "submit",
                # Codex CLI and Gemini CLI: edits, plans, memory
                "apply_patch", "update_plan", "replace", "write_file", "write_todos",
                "save_memory", "view_image"):
        return None
    if tool in ("Grep", "grep", "search_dir", "search_file", "search_code",
                "search_code_in_file", "search_class", "search_method", "search_method_in_file",
                "search_method_in_class", "search_class_in_file", "sourcegraph", "rg",
                "search_file_content", "grep_search", "grep_files"):
        return "code_search", "search_files"
    if tool in ("Glob", "LS", "ls", "glob", "find_file", "list_directory", "list_files",
                "list_dir"):
        return "directory_listing", "list_directory"
    if lowered.startswith("mcp__") or lowered.startswith("mcp_"):
        return ("json_api" if _looks_json(output) else "mcp_text"), tool
    if tool in ("WebFetch", "fetch", "web_fetch", "WebSearch", "agentic_fetch", "download",
                "google_web_search", "web_search"):
        return None
    if tool in _SHELL or tool in ("python", "python3", "cd", "cat", "find", "pip", "apt",
                                  "apt-cache", "wget", "mvn", "npm", "git", "grep", "goto",
                                  "scroll_down", "scroll_up"):
        cmd = command
        if tool not in _SHELL and tool in ("goto", "scroll_down", "scroll_up"):
            return "file_view", "read_file"
        for regex, kind in ((_GIT, "git"), (_TEST, "test_run"), (_INSTALL, "package_install"),
                            (_BUILD, "build"), (_LINT, "lint"), (_GREP, "grep"),
                            (_VIEW, "file_view"), (_API, "json_api"), (_LIST, "directory_listing")):
            if regex.search(cmd):
                if kind == "json_api" and not _looks_json(output):
                    kind = "api_text"
                return kind, "execute_command"
        if _looks_json(output):
            return "json_api", "execute_command"
        return "other_command", "execute_command"
    return ("json_api" if _looks_json(output) else "other_tool"), tool


# --------------------------------------------------------------------------- keys


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    """(field, string) of every string inside a tool call's input."""
    if isinstance(value, str):
        yield "", value
    elif isinstance(value, dict):
        for field, item in value.items():
            for sub, text in _strings(item):
                yield (f"{field}.{sub}" if sub else str(field)), text
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


_BACKTICK = re.compile(r"`([^`\n]{6,300})`")
_QUOTED = re.compile(r"\"([^\"\n]{12,300})\"|'([^'\n]{12,300})'")
_NUMBERED = re.compile(r"^\s*(\d+)(?:→|\||:|\t)")
_PATHLIKE = re.compile(r"[\w.-]+(?:/[\w.@+-]+)+|[\w-]+\.[A-Za-z]{1,5}\b")
_NUMBER_ARG = re.compile(r"\b(?:offset|line|start_line|view_range|line_number)\b")


def _probes(step: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(how, probe text) for what a next step may have taken from an output."""
    if step["type"] == "text":
        text = step["text"]
        for match in _BACKTICK.finditer(text):
            yield "quoted in its next message", match.group(1)
        for block in _FENCE.findall(text):
            for line in block.splitlines():
                yield "copied into its next message", line
        for match in _QUOTED.finditer(text):
            yield "quoted in its next message", match.group(1) or match.group(2)
        for match in _PATHLIKE.finditer(text):
            yield "named in its next message", match.group(0)
        return
    for field, value in _strings(step.get("input")):
        name = str(step.get("name"))
        if field.endswith(("file_path", "path", "filePath", "notebook_path")) and value:
            yield f"opened with {name}", value
            parts = value.strip("/").split("/")
            for start in range(1, len(parts) - 1):
                yield f"opened with {name}", "/".join(parts[start:])
            continue
        lines = value.splitlines() or [value]
        how = {"old_string": "replaced with Edit", "old_str": "replaced with Edit",
               "new_string": "kept in its edit", "new_str": "kept in its edit",
               "content": "copied into a file it wrote", "command": f"used in its {name} call",
               "pattern": f"searched for with {name}"}.get(field.split(".")[-1],
                                                         f"passed to {name}")
        for line in lines:
            yield how, line
        if field.endswith("command"):
            try:
                tokens = shlex.split(value, comments=False)
            except ValueError:
                tokens = value.split()
            for token in tokens:
                yield f"used in its {name} call", token
                for path in _PATHLIKE.findall(token):
                    yield f"used in its {name} call", path


def _line_number_requests(step: dict[str, Any]) -> Iterator[int]:
    """File line numbers a next call asks to view (Read/view offset, goto N, open f N,
    sed -n 'N,Mp', view_range)."""
    if step["type"] != "call":
        return
    value = step.get("input")
    if isinstance(value, dict):
        for field, item in value.items():
            if field in ("offset", "line", "start_line", "line_number") and isinstance(item, int):
                yield item
            if field == "view_range" and isinstance(item, list) and item and isinstance(
                    item[0], int):
                yield item[0]
        command = value.get("command") if isinstance(value.get("command"), str) else ""
    else:
        command = str(value or "")
    for match in re.finditer(r"^(?:goto|open\s+\S+)\s+(\d+)\s*$", command, re.MULTILINE):
        yield int(match.group(1))
    for match in re.finditer(r"sed -n ['\"]?(\d+),(\d+)p", command):
        yield int(match.group(1))


def _abbrev(text: str, around: str = "", width: int = 200) -> str:
    text = " ".join(text.split())
    if around:
        at = text.find(" ".join(around.split()))
        if at > width // 2:
            text = "..." + text[at - width // 4:]
    return text[:width] + ("..." if len(text) > width else "")


def _describe(step: dict[str, Any]) -> str:
    if step["type"] == "text":
        return step["text"]
    return f"{step.get('name')} {json.dumps(step.get('input'), ensure_ascii=False)}"


def derive_keys(output: str, prior: str, producing_call: str,
                following: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keys of *output*: what the agent's next steps (*following*) took from it.

    A probe (a path it opened, a line of an ``old_str``, a span it quoted, a token of its
    next command) counts when it is at least 6 characters, occurs in the output at most
    :data:`MAX_HOLDERS` times, and occurred nowhere in the agent's context before the
    output (*prior*, which includes the call that produced it). The key is the whole line
    holding the probe (stripped, at most 300 characters) when one line holds it, else the
    probe itself (at least 10 characters), located at its first line.
    """
    lines = lines_of(output)
    stripped = [line.strip() for line in lines]
    counts = Counter(stripped)
    keys: list[dict[str, Any]] = []
    taken: set[str] = set()

    def usable(line_text: str) -> bool:
        return (len(line_text) >= 8 and counts[line_text] <= 2
                and sum(ch.isalnum() for ch in line_text) >= 5)

    def add(number: int, probe: str, how: str, step: int, action: dict[str, Any],
            several: bool = False) -> None:
        line_text = stripped[number]
        if several or len(line_text) > 300:
            key = probe if len(probe) >= 10 else ""
        else:
            key = line_text
        if not key or key in taken or not usable(line_text) or key in prior:
            return
        taken.add(key)
        keys.append({"text": key, "line": number + 1, "how": how,
                     "evidence": {"next_step": step, "type": action["type"],
                                  "tool": action.get("name"),
                                  "action": _abbrev(_describe(action), probe)}})

    numbered: dict[int, int] = {}
    for index, line in enumerate(lines):
        match = _NUMBERED.match(line)
        if match:
            numbered.setdefault(int(match.group(1)), index)

    for position, step in enumerate(following, start=1):
        if len(keys) >= MAX_KEYS:
            break
        # A line number range it viewed next, in a numbered file view.
        for wanted in _line_number_requests(step):
            if wanted in numbered and numbered[wanted] != 0:
                add(numbered[wanted], stripped[numbered[wanted]], f"viewed from line {wanted}",
                    position, step)
        # Whole lines of the output repeated verbatim in what it wrote or called next.
        # In a message: the line anywhere in it; in a call: the line as one of its lines.
        holder: str | set[str] = step["text"] if step["type"] == "text" else {
            line.strip() for _, value in _strings(step.get("input"))
            for line in value.splitlines()}
        for index, line_text in enumerate(stripped):
            if len(line_text) >= 20 and line_text in holder and usable(line_text) \
                    and line_text not in producing_call:
                add(index, line_text, "repeated a whole line" if step["type"] == "text"
                    else f"used a whole line in its {step.get('name')} call", position, step)
        for how, probe in _probes(step):
            probe = probe.strip().strip("`'\",;:()[]{}")
            if len(probe) < 6 or probe in producing_call or probe in prior:
                continue
            if probe not in output or not re.search(r"[A-Za-z]{3}", probe):
                continue
            if probe.isalpha() and len(probe) < 12:
                continue  # a plain word: too common to be evidence
            if output.count(probe) > MAX_HOLDERS:
                continue
            holders = [i for i, text in enumerate(lines) if probe in text]
            if not holders:
                continue  # across a line break (a lone "\r" inside a quoted span)
            # On one line: the key is that line. On a few: the probe itself (a path named
            # by several frames of a traceback), located at its first line.
            add(holders[0], probe, how, position, step, several=len(holders) > 1)
    return keys[:MAX_KEYS]


# --------------------------------------------------------------------------- cases


def _command_of(call: dict[str, Any]) -> str:
    value = call.get("input")
    if isinstance(value, dict):
        for field in ("command", "cmd", "args"):
            if isinstance(value.get(field), str):
                return str(value[field])
        return json.dumps(value, ensure_ascii=False)
    return str(value or "")


def cases_from_steps(steps: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Candidate cases: each big result with its call, the context before it and the next
    steps of the same thread."""
    by_thread: dict[str, list[int]] = defaultdict(list)
    for index, step in enumerate(steps):
        by_thread[step.get("thread", "")].append(index)
    calls = {step.get("id"): step for step in steps if step["type"] == "call"}
    prior_parts: dict[str, list[str]] = defaultdict(list)
    for index, step in enumerate(steps):
        thread = step.get("thread", "")
        if step["type"] == "result":
            content = step.get("content")
            call = calls.get(step.get("id"))
            if isinstance(content, str) and MIN_CHARS <= len(content) <= MAX_CHARS and call:
                following: list[dict[str, Any]] = []
                later = [i for i in by_thread[thread] if i > index]
                wrote = False
                for other in later:
                    step_after = steps[other]
                    wrote = wrote or step_after["type"] == "text"
                    if step_after.get("batched") and not wrote:
                        continue  # issued with this one, before its result was seen
                    if step_after["type"] in ("call", "text") and not step_after.get("context"):
                        following.append(step_after)
                    if sum(s["type"] == "call" for s in following) >= 4 or len(following) >= 8:
                        break
                prior = "\n".join(prior_parts[thread])
                yield {"output": content, "call": call, "following": following,
                       "prior": prior, "is_error": step.get("is_error", False)}
        text = step.get("text") if step["type"] == "text" else (
            step.get("content") if step["type"] == "result" else _describe(step))
        if isinstance(text, str):
            prior_parts[thread].append(text)


def extract_repo(snapshot: Snapshot, adapter: str, system: str,
                 pattern: str) -> Iterator[dict[str, Any]]:
    """Candidate cases of one source (repository, adapter), with their provenance."""
    if adapter == "agent_db":
        yield from _extract_db(snapshot, system, pattern)
        return
    blobs = snapshot.blobs(pattern)
    if adapter == "acr":
        # Each round's file holds the conversation so far: keep the last round per run.
        last: dict[str, tuple[int, str, str]] = {}
        for blob, path in blobs:
            run, _, name = path.rpartition("/")
            number = int(re.findall(r"\d+", name)[-1])
            if run not in last or number > last[run][0]:
                last[run] = (number, blob, path)
        blobs = sorted((blob, path) for _, blob, path in last.values())
    for blob, path in blobs:
        raw = snapshot.read(blob).decode("utf-8", errors="surrogateescape")
        try:
            if adapter == "claude_stream":
                steps = claude_steps(_jsonl(raw))
            elif adapter == "claude_chat":
                data = json.loads(raw)
                steps = claude_steps(data if isinstance(data, list) else [])
            elif adapter == "sweagent":
                steps = sweagent_steps(json.loads(raw))
            elif adapter == "acr":
                data = json.loads(raw)
                steps = acr_steps(data if isinstance(data, list) else [])
            elif adapter == "codex":
                steps = codex_steps(_jsonl(raw))
            elif adapter == "gemini":
                steps = gemini_steps(json.loads(raw))
            else:
                raise ValueError(adapter)
        except (ValueError, AttributeError, TypeError):
            continue
        for case in cases_from_steps(steps):
            case.update(repo=snapshot.repo, path=path, blob=blob, system=system,
                        commit_lookup=blob)
            yield case


def _extract_db(snapshot: Snapshot, system: str, pattern: str) -> Iterator[dict[str, Any]]:
    blobs = snapshot.blobs(pattern)
    paths = sorted({path for _, path in blobs})
    for path in paths:
        for commit in snapshot.commits_touching(path) + snapshot.commits_touching(path + "-wal"):
            db_blob = snapshot.blob_at(commit, path)
            if not db_blob:
                continue
            wal_blob = snapshot.blob_at(commit, path + "-wal")
            with tempfile.TemporaryDirectory() as tmp:
                name = os.path.basename(path)
                Path(tmp, name).write_bytes(snapshot.read(db_blob))
                if wal_blob:
                    Path(tmp, name + "-wal").write_bytes(snapshot.read(wal_blob))
                    # mode=ro cannot replay a WAL without its -shm: open read-write on
                    # the temporary copy (the snapshot itself is never written).
                    os.chmod(tmp, 0o700)
                try:
                    connection = sqlite3.connect(os.path.join(tmp, name))
                    connection.execute("SELECT 1 FROM messages LIMIT 1")
                    connection.close()
                    steps = agent_db_steps(os.path.join(tmp, name))
                except sqlite3.Error:
                    continue
            for case in cases_from_steps(steps):
                case.update(repo=snapshot.repo, path=path + (" (+ -wal)" if wal_blob else ""),
                            blob=db_blob, system=system, commit=commit)
                yield case


def _usable(case: dict[str, Any],
            keep: Callable[[str, str], bool] | None = None) -> dict[str, Any] | None:
    """The case with its kind and keys, or None; *keep* (agent system, kind) may turn a kind
    away before its keys are looked for."""
    output: str = case["output"]
    call = case["call"]
    tool = str(call.get("name") or "")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in output) or "\x00" in output:
        return None
    if clipped(output, tool) or secret_like(output):
        return None
    command = _command_of(call)
    kinds = classify(tool, command, output)
    if kinds is None or (keep is not None and not keep(case["system"], kinds[0])):
        return None
    producing = _describe(call)
    keys = derive_keys(output, case["prior"], producing, case["following"])
    if not keys:
        return None
    kind, library_tool = kinds
    return {"output": output, "tool": tool, "command": command if tool in _SHELL or
            case["system"] in ("SWE-agent", "AutoCodeRover") else "",
            "kind": kind, "library_tool": library_tool, "keys": keys,
            "repo": case["repo"], "path": case["path"], "blob": case["blob"],
            "system": case["system"], "commit": case.get("commit", ""),
            "commit_lookup": case.get("commit_lookup")}


def collect(mirror: Path, sources_by_repo: dict[str, list[tuple[str, str, str]]] | None = None,
            keep: Callable[[str, str], bool] | None = None) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for repo, sources in (SOURCES if sources_by_repo is None else sources_by_repo).items():
        if repo.lower() in HELD_OUT_REPOS:
            raise SystemExit(f"{repo} is held out")
        snapshot = Snapshot(mirror, repo)
        if not snapshot.exists():
            print(f"skip {repo}: no snapshot", file=sys.stderr)
            continue
        count = 0
        for adapter, system, pattern in sources:
            for candidate in extract_repo(snapshot, adapter, system, pattern):
                digest = hashlib.sha256(candidate["output"].encode("utf-8")).hexdigest()
                if digest in seen:
                    continue
                case = _usable(candidate, keep)
                if case is None:
                    continue
                seen.add(digest)
                case["sha256"] = digest
                if case.get("commit_lookup"):
                    case["commit"] = snapshot.commit_of(case["commit_lookup"], case["path"])
                found.append(case)
                count += 1
        print(f"{repo}: {count} candidate cases", file=sys.stderr)
    return found


def select(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cap each repository (and each repository's kind), deterministically: cases in order
    of their output's sha256."""
    chosen: list[dict[str, Any]] = []
    per_repo: Counter[str] = Counter()
    per_repo_kind: Counter[tuple[str, str]] = Counter()
    for case in sorted(cases, key=lambda c: c["sha256"]):
        if per_repo[case["repo"]] >= MAX_PER_REPO or \
                per_repo_kind[(case["repo"], case["kind"])] >= MAX_PER_REPO_KIND:
            continue
        per_repo[case["repo"]] += 1
        per_repo_kind[(case["repo"], case["kind"])] += 1
        chosen.append(case)
    return chosen


def split(cases: list[dict[str, Any]], placed: Iterable[dict[str, Any]] = (),
          fixed: dict[str, str] | None = None) -> dict[str, str]:
    """Repository -> "dev" or "held_out". Repositories in order of sha256(name); each goes to
    the half it helps most: the one where its (system, kind) pairs are rarer, ties to the
    half with fewer cases. Deterministic, and blind to any score.

    Round 2 starts from the cases already *placed* (each with its ``half``), and a
    repository in *fixed* keeps the half it has there."""
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in cases:
        by_repo[case["repo"]].append(case)
    halves = {"dev": Counter(), "held_out": Counter()}
    totals = {"dev": 0, "held_out": 0}
    systems: dict[str, Counter[str]] = {"dev": Counter(), "held_out": Counter()}
    kinds: dict[str, Counter[str]] = {"dev": Counter(), "held_out": Counter()}
    for case in placed:
        kinds[case["half"]][case["kind"]] += 1
        systems[case["half"]][case["system"]] += 1
        totals[case["half"]] += 1
    assignment: dict[str, str] = {}
    order = sorted(by_repo, key=lambda r: hashlib.sha256(r.encode()).hexdigest())
    # Largest repositories first, so that the small ones even out the halves.
    order.sort(key=lambda r: -len(by_repo[r]))
    for repo in order:
        repo_cases = by_repo[repo]
        gains = {}
        for half in ("dev", "held_out"):
            rarity = sum(1.0 / (1 + kinds[half][case["kind"]])
                         + 2.0 / (1 + systems[half][case["system"]]) for case in repo_cases)
            gains[half] = (rarity - 0.02 * totals[half], half)
        half = (fixed or {}).get(repo) or max(gains, key=lambda h: gains[h])
        assignment[repo] = half
        for case in repo_cases:
            halves[half][(case["system"], case["kind"])] += 1
            kinds[half][case["kind"]] += 1
            systems[half][case["system"]] += 1
        totals[half] += len(repo_cases)
    return assignment


def write(cases: list[dict[str, Any]], assignment: dict[str, str], corpus: Path) -> None:
    outputs = corpus / "outputs"
    outputs.mkdir(parents=True, exist_ok=True)
    for old in outputs.glob("*.txt"):
        old.unlink()
    manifest_cases = []
    for number, case in enumerate(sorted(cases, key=lambda c: (c["repo"].lower(), c["sha256"])),
                                  start=1):
        name = f"{number:03d}_{case['kind']}"
        file = f"outputs/{name}.txt"
        data = case["output"].encode("utf-8")
        (corpus / file).write_bytes(data)
        manifest_cases.append({
            "name": name, "file": file, "chars": len(case["output"]), "bytes": len(data),
            "lines": len(lines_of(case["output"])), "sha256": case["sha256"],
            "system": case["system"], "kind": case["kind"], "tool": case["tool"],
            "command": _abbrev(case["command"], width=300) if case["command"] else "",
            "library_tool": case["library_tool"], "half": assignment[case["repo"]],
            "source": {"repo": case["repo"], "path": case["path"], "commit": case["commit"]},
            "keys": case["keys"],
        })
    manifest = {
        "description": (
            "Real tool outputs that public agent sessions received, with keys taken from the "
            "agent's next actions. Made by bench/agent_corpus_extract.py; see "
            "bench/agent_corpus/README.md."),
        "held_out_repos_excluded": sorted(HELD_OUT_REPOS),
        "split": {"method": "by source repository; bench/agent_corpus_extract.py split()",
                  "repos": dict(sorted(assignment.items(), key=lambda kv: kv[0].lower()))},
        "cases": manifest_cases,
    }
    (corpus / "manifest.json").write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- round 2

MANIFEST_2 = "manifest-2.json"
FROZEN_2 = "FROZEN-2.sha256"


def keep_2(round_1_systems: frozenset[str]) -> Callable[[str, str], bool]:
    """Round 2's kinds: the thin ones from the systems of round 1, the nine from a new one."""
    def keep(system: str, kind: str) -> bool:
        kind = KIND_MERGES_2.get(kind, kind)
        return kind in (THIN_KINDS if system in round_1_systems else NINE_KINDS)
    return keep


def select_2(cases: list[dict[str, Any]], frozen: set[str]) -> list[dict[str, Any]]:
    """Round 2's additions: outputs not already in the corpus, in order of their sha256,
    capped per repository and per repository and kind."""
    chosen: list[dict[str, Any]] = []
    per_repo: Counter[str] = Counter()
    per_repo_kind: Counter[tuple[str, str]] = Counter()
    for case in sorted(cases, key=lambda c: c["sha256"]):
        if case["sha256"] in frozen:
            continue
        case["kind"] = KIND_MERGES_2.get(case["kind"], case["kind"])
        if per_repo[case["repo"]] >= MAX_PER_REPO_2 or \
                per_repo_kind[(case["repo"], case["kind"])] >= MAX_PER_REPO_KIND_2:
            continue
        per_repo[case["repo"]] += 1
        per_repo_kind[(case["repo"], case["kind"])] += 1
        chosen.append(case)
    return chosen


def write_2(cases: list[dict[str, Any]], assignment: dict[str, str], corpus: Path,
            first_number: int) -> None:
    """Round 2's outputs (numbered on from round 1's), ``manifest-2.json`` and
    ``FROZEN-2.sha256``; round 1's files are left as they are."""
    manifest_cases = []
    for number, case in enumerate(sorted(cases, key=lambda c: (c["repo"].lower(), c["sha256"])),
                                  start=first_number):
        name = f"{number:03d}_{case['kind']}"
        file = f"outputs/{name}.txt"
        data = case["output"].encode("utf-8")
        if (corpus / file).exists():
            raise SystemExit(f"{file} exists: round 2 never overwrites an output")
        (corpus / file).write_bytes(data)
        manifest_cases.append({
            "name": name, "file": file, "chars": len(case["output"]), "bytes": len(data),
            "lines": len(lines_of(case["output"])), "sha256": case["sha256"],
            "system": case["system"], "kind": case["kind"], "tool": case["tool"],
            "command": _abbrev(case["command"], width=300) if case["command"] else "",
            "library_tool": case["library_tool"], "half": assignment[case["repo"]],
            "round": 2,
            "source": {"repo": case["repo"], "path": case["path"], "commit": case["commit"]},
            "keys": case["keys"],
        })
    repos = {case["repo"] for case in cases}
    manifest = {
        "description": (
            "Round 2 of the agent-output corpus: more real tool outputs, of the kinds round 1 "
            "left thin and from agent systems new to it, with keys taken from the agent's next "
            "actions. Made by bench/agent_corpus_extract.py --round 2; see "
            "bench/agent_corpus/README.md. Read together with manifest.json."),
        "extends": "manifest.json",
        "held_out_repos_excluded": sorted(HELD_OUT_REPOS),
        "split": {"method": ("by source repository; a repository of round 1 keeps its half, a "
                             "new one goes where its kinds and systems are rarer "
                             "(bench/agent_corpus_extract.py split())"),
                  "repos": {repo: assignment[repo]
                            for repo in sorted(repos, key=str.lower)}},
        "cases": manifest_cases,
    }
    (corpus / MANIFEST_2).write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    frozen_names = [MANIFEST_2, *(case["file"] for case in manifest_cases)]
    (corpus / FROZEN_2).write_text("".join(
        f"{hashlib.sha256((corpus / name).read_bytes()).hexdigest()}  {name}\n"
        for name in frozen_names), encoding="utf-8")


def round_2(mirror: Path, corpus: Path, dump: Path | None, from_dump: Path | None) -> None:
    first = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    if (corpus / MANIFEST_2).exists():
        raise SystemExit(f"{MANIFEST_2} exists: round 2 is frozen")
    frozen = {case["sha256"] for case in first["cases"]}
    if from_dump:
        cases = json.loads(from_dump.read_text(encoding="utf-8"))
    else:
        cases = collect(mirror, SOURCES_2,
                        keep_2(frozenset(case["system"] for case in first["cases"])))
    if dump:
        dump.write_text(json.dumps(cases, ensure_ascii=False))
        return
    chosen = select_2(cases, frozen)
    assignment = split(chosen, placed=first["cases"], fixed=first["split"]["repos"])
    write_2(chosen, assignment, corpus, first_number=len(first["cases"]) + 1)
    print(f"{len(chosen)} cases added of {len(cases)} candidates", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=CORPUS)
    parser.add_argument("--dump", type=Path, help="write all candidates (JSON) and stop")
    parser.add_argument("--from-dump", type=Path, help="select from candidates --dump wrote")
    parser.add_argument("--round", type=int, choices=(1, 2), default=1,
                        help="1: remake the corpus of round 1; 2: add round 2's cases")
    args = parser.parse_args()
    if args.round == 2:
        round_2(args.mirror, args.out, args.dump, args.from_dump)
        return
    if args.from_dump:
        cases = json.loads(args.from_dump.read_text(encoding="utf-8"))
    else:
        cases = collect(args.mirror)
    if args.dump:
        args.dump.write_text(json.dumps(cases, ensure_ascii=False))
        return
    chosen = select(cases)
    assignment = split(chosen)
    write(chosen, assignment, args.out)
    print(f"{len(chosen)} cases of {len(cases)} candidates", file=sys.stderr)


if __name__ == "__main__":
    main()
