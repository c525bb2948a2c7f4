"""Re-create the corpus outputs of ``tests/corpus/`` that were made by running real tools.

Each case below writes a small project into a temporary directory and runs the real tool
on it (pytest, cargo, gcc under make, clang with sanitizers, maven, go test, rspec, R CMD
check, ghc ...); what is kept is the tool's own output, stdout and stderr merged as
``trunc run`` sees them, with the temporary directory replaced by ``/tmp/work`` so that
runs compare. The code under test is ours (that is how a failure is put at the start, the
middle or the end of a long output); the output is the tool's. Tools that are not
installed are skipped. Where a case joins the outputs of several commands (a CI script),
its ``script`` says which, and the manifest says so.

Key lines are not picked here: they were marked by hand in ``tests/corpus/manifest.json``
by reading each output. Regenerating an output changes timings and addresses, so after a
run the key lines are found again by their text (:func:`relocate`), and a key line whose
text is gone is reported: re-mark it by hand.

    python bench/corpus_generate.py --list
    python bench/corpus_generate.py go-test-noisy-one-fail  # only these cases
    python bench/corpus_generate.py --all                # every generated case

Fixture files taken from public repositories are not re-created here: the manifest names
their repository, commit, path and license.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = ROOT / "tests" / "corpus"
MANIFEST = CORPUS / "manifest.json"
#: Where the npm and Python tools used below live (installed by ``--setup``).
TOOLS = Path(os.environ.get("CORPUS_TOOLS", "/tmp/ctools"))
NODE_BIN = TOOLS / "js" / "node_modules" / ".bin"
PY_BIN = TOOLS / "py" / "bin"

CaseFn = Callable[[Path], bytes]
CASES: dict[str, CaseFn] = {}
#: What each case ran, for the manifest's ``made_by.command``.
COMMANDS: dict[str, str] = {}


def case(name: str, command: str) -> Callable[[CaseFn], CaseFn]:
    def register(fn: CaseFn) -> CaseFn:
        CASES[name] = fn
        COMMANDS[name] = command
        return fn
    return register


def run(argv: list[str] | str, cwd: Path, env: dict[str, str] | None = None,
        timeout: int = 900) -> bytes:
    """The command's output, stdout and stderr merged, as ``trunc run`` sees it."""
    shell = isinstance(argv, str)
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={**os.environ, "LC_ALL": "C.UTF-8", **(env or {})},
                          timeout=timeout, check=False, shell=shell,
                          executable="/bin/bash" if shell else None)
    shown = argv if shell else " ".join(argv[:4])
    print(f"  {str(shown)[:70]}... exit {done.returncode}, {len(done.stdout):,} bytes",
          file=sys.stderr)
    return done.stdout


def need(*tools: str) -> None:
    for tool in tools:
        if not shutil.which(tool) and not Path(tool).exists():
            raise FileNotFoundError(tool)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content).lstrip("\n"))


# == the cases kept from bench/bench_salient.py ===============================================


@case("pytest-failures", "python -m pytest -v -rfE -p no:cacheprovider test_service.py")
def case_pytest(work: Path) -> bytes:
    write(work, {"test_service.py": """
        import pytest

        CURSED = {23, 131, 277}

        @pytest.mark.parametrize("n", range(320))
        def test_request(n):
            for step in range(80):
                print(f"request {n} step {step}: handler ok, 200, 12ms")
            assert n not in CURSED, f"status for request {n} was 500 (cursed-{n})"

        def test_config():
            raise KeyError("database_url (cursed-config)")
        """})
    return run([sys.executable, "-m", "pytest", "-v", "-rfE", "-p", "no:cacheprovider",
                "test_service.py"], work)


@case("pytest-many-failures", "python -m pytest -rf -p no:cacheprovider test_batch.py")
def case_pytest_many(work: Path) -> bytes:
    write(work, {"test_batch.py": """
        import pytest

        @pytest.mark.parametrize("n", range(400))
        def test_row(n):
            print(f"row {n}: parsed, validated, stored")
            assert n % 13 != 5, f"row {n} failed validation (cursed-{n})"
        """})
    return run([sys.executable, "-m", "pytest", "-rf", "-p", "no:cacheprovider",
                "test_batch.py"], work)


@case("python-traceback-in-log", "python service.py")
def case_traceback_log(work: Path) -> bytes:
    write(work, {"service.py": """
        import logging, sys
        logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        log = logging.getLogger("billing")

        def charge(order, amount, items):
            return amount / items

        for i in range(5000):
            if i == 2100:
                try:
                    charge(i, 120, 0)
                except ZeroDivisionError:
                    log.exception("charging order %d failed", i)
                continue
            log.info("order %d charged, %d items, queue depth %d", i, i % 7 + 1, i % 31)
        log.info("worker done")
        """})
    return run([sys.executable, "service.py"], work)


def _wheel(directory: Path, name: str, version: str, requires: list[str]) -> None:
    dist = f"{name}-{version}"
    meta = [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"]
    meta += [f"Requires-Dist: {r}\n" for r in requires]
    files = {
        f"{name}/__init__.py": "",
        f"{dist}.dist-info/METADATA": "".join(meta),
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: "
                                   "true\nTag: py3-none-any\n",
    }
    files[f"{dist}.dist-info/RECORD"] = "".join(f"{p},,\n" for p in files) + \
        f"{dist}.dist-info/RECORD,,\n"
    with zipfile.ZipFile(directory / f"{dist}-py3-none-any.whl", "w") as zf:
        for path, content in files.items():
            zf.writestr(path, content)


@case("pip-resolution-error", "python -m pip install -v --dry-run --no-index --find-links "
      "wheels bench-app bench-plugin (local wheels with conflicting pins)")
def case_pip(work: Path) -> bytes:
    wheels = work / "wheels"
    wheels.mkdir()
    names = [f"bench-lib{i}" for i in range(150)]
    for name in names:
        _wheel(wheels, name.replace("-", "_"), "1.0", [])
    _wheel(wheels, "shared_core", "1.0", [])
    _wheel(wheels, "shared_core", "2.0", [])
    _wheel(wheels, "bench_app", "1.0", ["shared-core==1.0", *names[:75]])
    _wheel(wheels, "bench_plugin", "1.0", ["shared-core==2.0", *names[75:]])
    return run([sys.executable, "-m", "pip", "install", "-v", "--dry-run", "--no-index",
                "--find-links", str(wheels), "--no-cache-dir", "bench-app", "bench-plugin"],
               work, env={"PIP_FIND_LINKS": "", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})


@case("gcc-make-errors", "make -k (45 C files, gcc -Wall -Wextra, 3 with errors)")
def case_gcc(work: Path) -> bytes:
    need("gcc", "make")
    broken = {9: "return undeclared_total;", 24: "int x = ;", 33: "struct missing m; (void)m;"}
    for i in range(45):
        body = broken.get(i, f"return a + {i};")
        (work / f"unit{i:02d}.c").write_text(textwrap.dedent(f"""
            #include <stdio.h>
            static int helper{i}(int a, int b) {{ int unused{i}; int spare{i} = b; {body} }}
            int entry{i}(int a) {{
                char buf[4]; sprintf(buf, "%d", a * 1000); return helper{i}(a, 2); }}
            """))
    objects = " ".join(f"unit{i:02d}.o" for i in range(45))
    (work / "Makefile").write_text(f"all: {objects}\n%.o: %.c\n\tgcc -Wall -Wextra -c $< -o $@\n")
    return run(["make", "-k"], work, env={"LC_ALL": "C"})


@case("npm-script-error", "npm run build (a build script that logs 2,500 lines, then throws)")
def case_npm(work: Path) -> bytes:
    need("npm")
    (work / "package.json").write_text(json.dumps(
        {"name": "bench-site", "version": "1.0.0", "private": True,
         "scripts": {"build": "node build.js"}}))
    write(work, {"build.js": """
        for (let i = 0; i < 2500; i++) {
          console.log(`[build] bundling chunk ${i} (${(i * 37) % 997} kB) ok`);
        }
        throw new Error("asset pipeline failed: missing src/logo.svg");
        """})
    return run(["npm", "run", "build", "--no-update-notifier", "--no-fund", "--no-audit"], work,
               env={"npm_config_loglevel": "error"})


@case("cargo-test-failure", "cargo test --offline -- --test-threads=1 (260 tests, 2 fail)")
def case_cargo(work: Path) -> bytes:
    need("cargo")
    subprocess.run(["cargo", "new", "--lib", "--vcs", "none", "ledger"], cwd=work, check=True,
                   capture_output=True)
    tests = "\n".join(
        f"#[test]\nfn entry_{i}() {{ for s in 0..20 {{ println!(\"entry {i} step {{s}} ok\"); }}"
        f" assert_eq!({i} % 97, {i if i not in (42, 210) else i + 1} % 97, \"ledger-{i}\"); }}"
        for i in range(260))
    (work / "ledger" / "src" / "lib.rs").write_text(f"#[cfg(test)]\nmod tests {{\n{tests}\n}}\n")
    return run(["cargo", "test", "--offline", "--", "--test-threads=1"], work / "ledger",
               env={"CARGO_TERM_COLOR": "never"})


# == structured logs (JSON Lines) =============================================================


@case("pino-jsonl-error", "node service.js (pino: 3,000 info records, an error with an err "
      "object and a fatal record in the middle)")
def case_pino(work: Path) -> bytes:
    need(str(NODE_BIN.parent / "pino"))
    write(work, {"service.js": """
        const pino = require('pino');
        let n = 0;
        const log = pino({ base: { service: 'checkout', pid: 4242, hostname: 'worker-3' },
                           timestamp: () => `,"time":${1764100000000 + n * 37}` });
        function capture(order) {
          const e = new Error(`ECONNRESET while capturing payment for order ${order}`);
          e.code = 'ECONNRESET';
          throw e;
        }
        for (n = 0; n < 3000; n++) {
          if (n === 1600) {
            try { capture(n); } catch (err) {
              log.error({ err, order: n, attempt: 3 }, 'payment capture failed, giving up');
            }
            continue;
          }
          if (n === 1602) {
            log.fatal({ queue: 'payments', depth: 912 }, 'payment worker stopped: circuit open');
            continue;
          }
          log.info({ reqId: `req-${n}`, route: '/cart', ms: (n * 7) % 90 }, 'request served');
        }
        """})
    env = {"NODE_PATH": str(TOOLS / "js" / "node_modules")}
    return run(["node", "service.js"], work, env=env)


@case("winston-jsonl-error", "node app.js (winston 3 JSON format: 3,000 info records, one "
      "\"level\":\"error\" with a stack near the start)")
def case_winston(work: Path) -> bytes:
    write(work, {"app.js": """
        const winston = require('winston');
        const log = winston.createLogger({
          format: winston.format.combine(winston.format.errors({ stack: true }),
                                         winston.format.json()),
          transports: [new winston.transports.Console()],
        });
        function loadTenant(id) {
          if (id === 41) throw new TypeError(`Cannot read properties of undefined (reading 'plan')`);
          return { id, plan: 'pro' };
        }
        for (let i = 0; i < 3000; i++) {
          try {
            const t = loadTenant(i);
            log.info('tenant synced', { tenant: t.id, plan: t.plan, rows: (i * 13) % 500 });
          } catch (err) {
            log.error('tenant sync failed', { tenant: i, error: { message: err.message, stack: err.stack } });
          }
        }
        """})
    env = {"NODE_PATH": str(TOOLS / "js" / "node_modules")}
    return run(["node", "app.js"], work, env=env)


@case("structlog-jsonl-error", "python worker.py (structlog JSONRenderer: 3,000 info records, "
      "an \"level\": \"error\" record with exception at record 30)")
def case_structlog(work: Path) -> bytes:
    write(work, {"worker.py": """
        import structlog

        structlog.configure(processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ])
        log = structlog.get_logger()

        def migrate(batch):
            if batch == 30:
                raise RuntimeError(f"migration 0042_add_index failed on batch {batch}: "
                                   "duplicate key value violates unique constraint")
            return batch * 100

        for batch in range(3000):
            try:
                rows = migrate(batch)
            except RuntimeError:
                log.error("batch failed", batch=batch, exc_info=True)
                continue
            log.info("batch migrated", batch=batch, rows=rows, table="orders")
        """})
    return run([str(PY_BIN / "python"), "worker.py"], work)


@case("jsonlogger-severity-error", "python api.py (python-json-logger, levelname renamed to "
      "severity as for Cloud Logging: 2,500 INFO records, one ERROR near the end)")
def case_jsonlogger(work: Path) -> bytes:
    write(work, {"api.py": """
        import logging, sys
        from pythonjsonlogger.json import JsonFormatter

        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s",
                                           rename_fields={"levelname": "severity"}))
        log = logging.getLogger("api")
        log.addHandler(handler)
        log.setLevel(logging.INFO)

        def quota(user):
            limits = {u: 100 for u in range(2490)}
            return limits[user]

        for user in range(2500):
            try:
                log.info("quota checked", extra={"user": user, "limit": quota(user)})
            except KeyError:
                log.exception("quota lookup failed", extra={"user": user})
                break
        for tick in range(8):
            log.info("shutting down", extra={"tick": tick})
        """})
    return run([str(PY_BIN / "python"), "api.py"], work)



# == header plus location: ruff, rustc/cargo, mypy, tsc =========================================


def _python_package(work: Path, modules: int, broken: dict[int, str]) -> None:
    (work / "shop").mkdir()
    for i in range(modules):
        body = broken.get(i, f"    return [row for row in rows if row.get('id') == {i}]")
        (work / "shop" / f"mod{i:02d}.py").write_text(
            "import os\nimport sys\nfrom typing import Any\n\n\n"
            f"def lookup_{i}(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:\n{body}\n\n\n"
            f"def total_{i}(rows: list[dict[str, Any]]) -> int:\n"
            "    return sum(int(r.get('qty', 0)) for r in rows)\n")
    (work / "shop" / "__init__.py").write_text("")


@case("ruff-full-undefined-name", "ruff check --output-format=full --no-cache shop/ (60 modules:"
      " 120 unused imports F401, 2 undefined names F821 in the middle)")
def case_ruff(work: Path) -> bytes:
    _python_package(work, 60, {
        29: "    return [row for row in rows if row.get('id') == order_id]",
        31: "    return sorted(rows, key=lambda r: r['id'])[: limitt]"})
    (work / "ruff.toml").write_text('[lint]\nselect = ["F", "E"]\n')
    return run([str(PY_BIN / "ruff"), "check", "--output-format=full", "--no-cache", "shop/"],
               work)


@case("mypy-pretty-errors", "mypy --pretty --strict shop/ (80 modules; missing annotations, "
      "reveal_type notes and a few real type errors spread over the package)")
def case_mypy(work: Path) -> bytes:
    broken = {i: f"    reveal_type(rows)\n    return [row for row in rows if row.get('id') == {i}]"
              for i in range(0, 80, 3)}
    broken[17] = "    return rows[0]['id'] + 'x'"
    broken[44] = "    total: int = rows\n    return total"
    broken[71] = "    return lookup_70(rows, strict=True)"
    _python_package(work, 80, broken)
    for i in range(80):
        path = work / "shop" / f"mod{i:02d}.py"
        text = path.read_text()
        if i == 71:
            text = "from shop.mod70 import lookup_70\n" + text
        text += f"\n\ndef legacy_{i}(rows, scale=1):\n    return [r * scale for r in rows]\n"
        path.write_text(text)
    return run([str(PY_BIN / "mypy"), "--pretty", "--strict", "--no-incremental",
                "--cache-dir=/dev/null", "shop/"], work)


@case("cargo-build-e0308-keep-going", "cargo build --keep-going (workspace of 5 crates with "
      "140 warnings; crate 'ledger' fails with error[E0308] in the middle)")
def case_cargo_e0308(work: Path) -> bytes:
    need("cargo")
    members = ["core_types", "codec", "ledger", "report", "cli"]
    (work / "Cargo.toml").write_text(
        "[workspace]\nresolver = \"2\"\nmembers = [" + ", ".join(f'"{m}"' for m in members)
        + "]\n")
    for m in members:
        fns = []
        for i in range(28):
            if m == "ledger" and i == 14:
                fns.append(f"pub fn balance_{i}(entries: &[i64]) -> u32 {{\n"
                           f"    let total: i64 = entries.iter().sum();\n    total\n}}")
            else:
                fns.append(f"pub fn step_{i}(input: u32) -> u32 {{\n    let unused_{i} = input"
                           f" * 2;\n    let mut spare = {i};\n    input + {i}\n}}")
        write(work, {f"{m}/Cargo.toml": f'[package]\nname = "{m}"\nversion = "0.1.0"\n'
                                         f'edition = "2021"\n',
                     f"{m}/src/lib.rs": "\n\n".join(fns) + "\n"})
    return run(["cargo", "build", "--offline", "--keep-going"], work,
               env={"CARGO_TERM_COLOR": "never", "CARGO_BUILD_JOBS": "1"})


def _ts_project(work: Path, files: int, broken: dict[int, str]) -> None:
    (work / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "strict": True, "noEmit": True, "target": "es2022", "module": "commonjs",
        "noUnusedLocals": True}, "include": ["src"]}))
    for i in range(files):
        extra = broken.get(i, "")
        write(work, {f"src/feature{i:02d}.ts": f"""
            export interface Row{i} {{ id: number; name: string; qty?: number }}

            export function pick{i}(rows: Row{i}[], id: number): Row{i} | undefined {{
              return rows.find((r) => r.id === id);
            }}

            export function total{i}(rows: Row{i}[]): number {{
              {extra or "return rows.reduce((sum, r) => sum + (r.qty ?? 0), 0);"}
            }}
            """})


@case("tsc-pretty-many-errors", "tsc -p . --pretty (60 files, 38 errors spread over them)")
def case_tsc_pretty(work: Path) -> bytes:
    errors = ["const unusedHelper = 1;\n  return rows.length;",
              "return rows.map((r) => r.qty).reduce((a, b) => a + b, 0);",
              "const n: number = rows[0].name;\n  return n;",
              "return rows.filter((r) => r.nam === 'x').length;",
              "return rows.length + undefinedTotal;"]
    broken = {i: errors[i % len(errors)] for i in range(60) if i % 8 in (1, 4, 6)}
    _ts_project(work, 60, broken)
    return run([str(NODE_BIN / "tsc"), "-p", ".", "--pretty"], work)


@case("tsc-plain-errors", "tsc -p . --pretty false (120 files, 3 errors in the middle)")
def case_tsc_plain(work: Path) -> bytes:
    broken = {58: "return rows.filter((r) => r.nam === 'x').length;",
              61: "const n: number = rows[0].name;\n  return n;",
              63: "return rows.length + undefinedTotal;"}
    _ts_project(work, 120, broken)
    listing = run([str(NODE_BIN / "tsc"), "-p", ".", "--listFiles", "--pretty", "false",
                   "--extendedDiagnostics"], work)
    return listing



# == TAP: node's test runner, node-tap, prove =================================================


@case("node-test-tap-fail", "node --test --test-reporter=tap (8 files, 400 tests logging "
      "progress; one deepStrictEqual fails in the middle)")
def case_node_tap(work: Path) -> bytes:
    for f in range(8):
        tests = []
        for t in range(50):
            expected = "{ total: 120, currency: 'EUR' }"
            actual = ("{ total: 118, currency: 'EUR' }" if (f, t) == (4, 17) else expected)
            tests.append(f"""
test('invoice {f}-{t} totals', () => {{
  for (let line = 0; line < 3; line++) console.log(`invoice {f}-{t} line ${{line}} priced`);
  assert.deepStrictEqual({actual}, {expected});
}});""")
        write(work, {f"test/invoice{f}.test.js":
                     "const test = require('node:test');\nconst assert = require('node:assert');\n"
                     + "".join(tests) + "\n"})
    return run(["node", "--test", "--test-reporter=tap", "--test-concurrency=1"], work)


@case("node-tap-fail-start", "for f in test/orders*.js; do node $f; done (node-tap's library"
      " prints TAP when a test file runs under node; the failing assertion is in the first "
      "file; the tap CLI itself could not load its TypeScript plugin here)")
def case_node_tap_pkg(work: Path) -> bytes:
    need(str(NODE_BIN / "tap"))
    for f in range(6):
        lines = ["const t = require('tap');"]
        for k in range(60):
            got = "'pending'" if (f, k) == (0, 3) else "'paid'"
            lines.append(f"t.test('order {f}-{k} is paid', async t => {{ "
                         f"t.equal({got}, 'paid', 'status of order {f}-{k}'); "
                         f"t.ok(true, 'ledger row {f}-{k} written'); }});")
        write(work, {f"test/orders{f}.js": "\n".join(lines) + "\n"})
    (work / "package.json").write_text(json.dumps({"name": "orders", "version": "1.0.0"}))
    (work / "node_modules").symlink_to(TOOLS / "js" / "node_modules")
    return run("for f in test/orders*.js; do node $f; done", work)


@case("prove-tap-fail-end", "prove -v t/ (perl Test::More, 30 files; is() fails in the last)")
def case_prove(work: Path) -> bytes:
    need("prove")
    for f in range(30):
        body = ["use strict; use warnings; use Test::More tests => 40;"]
        for k in range(40):
            got = "'1.24'" if (f, k) == (29, 33) else "'1.25'"
            body.append(f"is({got}, '1.25', 'rate {f}.{k} rounds to two places');")
        write(work, {f"t/{f:02d}-rates.t": "\n".join(body) + "\n"})
    return run(["prove", "-v", "t/"], work)


# == Python tracebacks and warnings ===========================================================


@case("python-chained-traceback-end", "python etl.py (3,000 progress lines, then a chained "
      "exception 6 frames deep)")
def case_py_chained(work: Path) -> bytes:
    write(work, {"etl.py": """
        import json

        def parse(raw):
            return json.loads(raw)

        def load_row(raw, n):
            try:
                return parse(raw)
            except json.JSONDecodeError as exc:
                raise ValueError(f"row {n}: bad JSON in column 'payload'") from exc

        def load_all(rows):
            return [load_row(r, n) for n, r in enumerate(rows)]

        def main():
            for i in range(3000):
                print(f"loaded shard {i:04d}: 250 rows, 0 rejected")
            load_all(['{"a": 1}'] * 40 + ['{"a": 1,,}'])

        main()
        """})
    return run([sys.executable, "etl.py"], work)


@case("python-warning-then-crash", "python report.py (a UserWarning early on explains the "
      "AttributeError at the end)")
def case_py_warning(work: Path) -> bytes:
    write(work, {"report.py": """
        import os, warnings

        def config():
            url = os.environ.get("REPORT_DB_URL")
            if url is None:
                warnings.warn("REPORT_DB_URL is not set; falling back to None", UserWarning)
            return {"db_url": url}

        cfg = config()
        for i in range(2500):
            print(f"rendering section {i}: 14 charts, 3 tables")
        host = cfg["db_url"].split("@")[1]
        """})
    return run([sys.executable, "report.py"], work, env={"REPORT_DB_URL": ""} and {})


# == many errors in a long log: clang, eslint ==================================================


@case("clang-many-errors", "make -k CC=clang (60 C files with warnings and notes; 14 distinct "
      "errors spread over them)")
def case_clang(work: Path) -> bytes:
    need("clang", "make")
    bad = ["return undeclared_total;", "struct missing m; (void)m; return 0;",
           "int x = \"text\"; return x;", "return helper_missing(a);",
           "char *p = 5; return *p;"]
    for i in range(60):
        body = bad[i % 5] if i % 4 == 2 and i < 58 else f"return a + {i};"
        write(work, {f"unit{i:02d}.c": f"""
            #include <stdio.h>
            #include <string.h>
            static int helper{i}(int a, int b) {{ int unused{i}; int spare{i} = b; {body} }}
            int entry{i}(int a) {{
                char buf[4]; sprintf(buf, "%d", a * 1000);
                if (a = 3) {{ return strlen(buf); }}
                return helper{i}(a, 2); }}
            """})
    objects = " ".join(f"unit{i:02d}.o" for i in range(60))
    (work / "Makefile").write_text(f"all: {objects}\n%.o: %.c\n\t$(CC) -Wall -Wextra -c $< -o $@\n")
    return run(["make", "-k", "CC=clang"], work, env={"LC_ALL": "C"})


@case("eslint-many-errors", "eslint . (80 files: hundreds of warnings, 9 errors spread)")
def case_eslint(work: Path) -> bytes:
    (work / ".eslintrc.json").write_text(json.dumps({
        "root": True, "env": {"node": True, "es2022": True},
        "parserOptions": {"ecmaVersion": 2022},
        "rules": {"no-unused-vars": "warn", "no-console": "warn", "eqeqeq": "warn",
                  "no-undef": "error", "no-unreachable": "error", "no-dupe-keys": "error"}}))
    for i in range(80):
        bug = ""
        if i % 9 == 4:
            bug = [f"  return totl{i};", f"  return {{ a{i}: 1, a{i}: 2 }};",
                   f"  return missingHelper{i}(rows);"][(i // 9) % 3]
        write(work, {f"src/mod{i:02d}.js": f"""
            const unusedA{i} = require('path');
            const unusedB{i} = 2;
            function run{i}(rows) {{
              console.log('rows', rows.length);
              if (rows.length == {i}) {{ console.log('exact'); }}
            {bug or "  return rows.length;"}
            }}
            module.exports = {{ run{i} }};
            """})
    return run([str(NODE_BIN / "eslint"), "--no-eslintrc", "-c", ".eslintrc.json", "src"], work,
               env={"ESLINT_USE_FLAT_CONFIG": "false"})


# == resolver and installer errors =============================================================


@case("pip-no-matching-version", "python -m pip install -v --no-cache-dir "
      "'requests==0.0.999' (from the package index)")
def case_pip_index(work: Path) -> bytes:
    return run([str(PY_BIN / "python"), "-m", "pip", "install", "-v", "--no-cache-dir",
                "--disable-pip-version-check", "requests==0.0.999"], work)


@case("npm-etarget-then-tests", "CI script: npm install lodash@99.0.0 (fails: ETARGET), then "
      "node --test runs the suite (passes) and prints its long report")
def case_npm_etarget(work: Path) -> bytes:
    need("npm")
    (work / "package.json").write_text(json.dumps({"name": "ci-app", "version": "1.0.0",
                                                    "private": True}))
    tests = "\n".join(
        f"test('route {i} renders', () => {{ assert.ok(true); }});" for i in range(600))
    write(work, {"test/routes.test.js": "const test = require('node:test');\n"
                 "const assert = require('node:assert');\n" + tests + "\n"})
    return run("npm install --no-fund --no-audit lodash@99.0.0; "
               "node --test --test-reporter=spec", work)


# == warnings before a crash (C) ===============================================================


@case("gcc-warning-then-segfault", "make && ./app && echo ok (gcc -Wall -O0 warns that 'slot' is used "
      "uninitialized; the program prints 3,000 lines and then crashes on it)")
def case_gcc_segv(work: Path) -> bytes:
    need("gcc", "make")
    write(work, {"app.c": """
        #include <stdio.h>
        static int *slot_for(int n) { int *slot; if (n > 2999) return slot; return 0; }
        int main(void) {
            setvbuf(stdout, NULL, _IOLBF, 0);
            for (int i = 0; i < 3000; i++) printf("allocated slot %d of 3000\\n", i);
            int *slot = slot_for(3000);
            *slot = 42;
            printf("done\\n");
            return 0;
        }
        """, "Makefile": "app: app.c\n\tgcc -Wall -Wextra -O0 -o app app.c\n"})
    return run("make && ./app && echo ok", work, env={"LC_ALL": "C"})


# == C and C++ builds, links, long paths ========================================================


@case("gcc-link-undefined-reference", "make (300 objects compile; the link fails on an undefined "
      "reference)")
def case_link(work: Path) -> bytes:
    need("gcc", "make")
    for i in range(300):
        write(work, {f"src/part{i:02d}.c": f"int part{i}(int a) {{ return a * {i}; }}\n"})
    calls = " + ".join(f"part{i}(1)" for i in range(300))
    write(work, {"src/main.c": f"""
        int ledger_close(int);
        {"".join(f"int part{i}(int);" for i in range(300))}
        int main(void) {{ return ledger_close({calls}); }}
        """})
    objs = " ".join(f"build/part{i:02d}.o" for i in range(300))
    (work / "Makefile").write_text(
        f"app: {objs} build/main.o\n\tgcc -o app $^\n"
        "build/%.o: src/%.c\n\t@mkdir -p build\n\tgcc -Wall -O2 -g -fPIC -c $< -o $@\n")
    return run(["make"], work, env={"LC_ALL": "C"})


@case("cmake-deep-path-error", "cmake -S . -B build && cmake --build build -- -k VERBOSE=1 "
      "(C++ sources under a 400-character directory path; one error in the middle)")
def case_cmake(work: Path) -> bytes:
    need("cmake", "g++")
    deep = "/".join(["components", "payments_gateway_adapters", "internal_implementation",
                     "generated_protocol_bindings", "version_2024_11_rev3",
                     "platform_specific_overrides", "linux_x86_64_release_with_debug_info",
                     "third_party_integration_layer", "compatibility_shims_do_not_edit",
                     "autogenerated_sources_from_idl_compiler", "module_settlement_engine"])
    sources = []
    for i in range(30):
        body = ("std::string total = 0.5 * amounts.size();" if i == 15
                else f"double total = {i} * 0.5 * amounts.size();")
        rel = f"{deep}/settlement_unit_{i:02d}.cpp"
        sources.append(rel)
        write(work, {rel: f"""
            #include <string>
            #include <vector>
            double settle_{i}(const std::vector<double>& amounts) {{
                {body}
                return total;
            }}
            """})
    (work / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(settlement CXX)\n"
        "add_compile_options(-Wall -Wextra -O2 -DSETTLEMENT_BUILD=1 -DPROTOCOL_REV=3)\n"
        "add_library(settlement STATIC\n  " + "\n  ".join(sources) + ")\n")
    return run("cmake -S . -B build && cmake --build build -- -k VERBOSE=1", work,
               env={"LC_ALL": "C"})



# == sanitizers ================================================================================


@case("ctest-asan-among-retries", "cmake + ctest -V (clang -fsanitize=address; 120 tests that "
      "log retried connection errors; one hits a heap-buffer-overflow in the middle)")
def case_ctest_asan(work: Path) -> bytes:
    need("cmake", "ctest", "clang")
    write(work, {"shard.c": """
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        int main(int argc, char **argv) {
            int shard = atoi(argv[1]);
            for (int attempt = 1; attempt <= 3; attempt++)
                printf("shard %d: error: connection refused (attempt %d/3), retrying in %dms\\n",
                       shard, attempt, attempt * 100);
            printf("shard %d: config: {retries: 3, on_error: retry, log_level: error}\\n", shard);
            char *buf = malloc(16);
            size_t n = shard == 61 ? 17 : 16;
            memset(buf, 'x', n);
            printf("shard %d: 16 records written\\n", shard);
            free(buf);
            return 0;
        }
        """, "CMakeLists.txt": """
        cmake_minimum_required(VERSION 3.13)
        project(shards C)
        enable_testing()
        add_compile_options(-fsanitize=address -fno-omit-frame-pointer -g)
        add_link_options(-fsanitize=address)
        add_executable(shard shard.c)
        foreach(i RANGE 0 119)
          add_test(NAME shard_${i} COMMAND shard ${i})
        endforeach()
        """})
    return run("cmake -S . -B build -DCMAKE_C_COMPILER=clang >/dev/null && "
               "cmake --build build >/dev/null && cd build && ctest -V", work,
               env={"LC_ALL": "C"})


@case("ubsan-overflow-start", "clang -fsanitize=undefined; ./stats (a signed overflow is "
      "reported at record 12; the program goes on for 4,000 records)")
def case_ubsan(work: Path) -> bytes:
    need("clang")
    write(work, {"stats.c": """
        #include <limits.h>
        #include <stdio.h>
        int main(void) {
            int total = INT_MAX - 20;
            for (int i = 0; i < 4000; i++) {
                int add = i == 12 ? 100 : 0;
                int sum = total + add;
                printf("record %d: running total %d, 0 rejected\\n", i, sum);
            }
            return 0;
        }
        """})
    return run("clang -fsanitize=undefined -g -O0 stats.c -o stats && ./stats", work)


@case("tsan-data-race-end", "clang -fsanitize=thread; ./counter (3,000 lines of progress, then "
      "ThreadSanitizer reports a data race)")
def case_tsan(work: Path) -> bytes:
    need("clang", "setarch")
    write(work, {"counter.c": """
        #include <pthread.h>
        #include <stdio.h>
        static long hits;
        static void *worker(void *arg) { for (int i = 0; i < 1000; i++) hits++; return arg; }
        int main(void) {
            for (int i = 0; i < 3000; i++) printf("warming cache block %d\\n", i);
            fflush(stdout);
            pthread_t a, b;
            pthread_create(&a, NULL, worker, NULL);
            pthread_create(&b, NULL, worker, NULL);
            pthread_join(a, NULL);
            pthread_join(b, NULL);
            printf("hits: %ld\\n", hits);
            return 0;
        }
        """})
    return run("clang -fsanitize=thread -g -O1 counter.c -o counter && "
               "setarch $(uname -m) -R ./counter", work)



@case("msan-uninit-middle", "CI script: for i in 0..59: ./decode $i || echo FAIL (clang "
      "-fsanitize=memory -fsanitize-memory-track-origins; shard 23 branches on a field it "
      "never set)")
def case_msan(work: Path) -> bytes:
    need("clang")
    write(work, {"decode.c": """
        #include <stdio.h>
        #include <stdlib.h>
        struct header { int version; int flags; int blocks; };
        static void read_header(struct header *h, int shard) {
            h->version = 3;
            h->blocks = 30;
            if (shard != 23) h->flags = 0;
        }
        int main(int argc, char **argv) {
            int shard = atoi(argv[1]);
            struct header *h = malloc(sizeof *h);
            read_header(h, shard);
            for (int b = 0; b < h->blocks; b++)
                printf("shard %d: block %d decoded, crc ok, 0 errors\\n", shard, b);
            if (h->flags & 4) printf("shard %d: compressed\\n", shard);
            printf("shard %d: done (%d blocks)\\n", shard, h->blocks);
            free(h);
            return 0;
        }
        """})
    return run("clang -fsanitize=memory -fsanitize-memory-track-origins -fno-omit-frame-pointer "
               "-g -O1 decode.c -o decode && for i in $(seq 0 59); do ./decode $i || "
               "echo \"FAIL: decode $i (exit $?)\"; done", work)


@case("lsan-leaks-end", "clang -fsanitize=address (LeakSanitizer at exit); ./server (3,000 "
      "request log lines, then LeakSanitizer reports the entries a cache never freed)")
def case_lsan(work: Path) -> bytes:
    need("clang")
    write(work, {"cache.c": """
        #include <stdlib.h>
        #include <string.h>
        struct entry { char *key; char *value; struct entry *next; };
        static struct entry *head;
        void cache_put(const char *key, const char *value) {
            struct entry *e = malloc(sizeof *e);
            e->key = strdup(key);
            e->value = strdup(value);
            e->next = head;
            head = e;
        }
        void cache_reset(void) { head = NULL; }
        """, "server.c": """
        #include <stdio.h>
        void cache_put(const char *key, const char *value);
        void cache_reset(void);
        int main(void) {
            setvbuf(stdout, NULL, _IOLBF, 0);
            char key[32];
            for (int i = 0; i < 3000; i++) {
                snprintf(key, sizeof key, "session-%d", i % 40);
                if (i % 100 == 0) cache_put(key, "user=guest;ttl=300");
                printf("GET /api/orders/%d 200 %dms (cache %s)\\n", i, 3 + i % 9,
                       i % 100 == 0 ? "miss" : "hit");
            }
            cache_reset();
            printf("shutting down: 3000 requests served\\n");
            return 0;
        }
        """})
    return run("clang -fsanitize=address -fno-omit-frame-pointer -g -O0 server.c cache.c "
               "-o server && ./server", work)


# == Xcode: xcpretty =========================================================================


@case("xcpretty-specta-fail", "xcpretty < spec/fixtures/raw_specta_fail.txt (xcpretty 0.4.1 "
      "run from its source with Debian's ruby-rouge, on the xcodebuild log in its own fixtures: "
      "922 Specta tests, one fails)")
def case_xcpretty(work: Path) -> bytes:
    """xcpretty formats xcodebuild's output; this feeds it the real xcodebuild log kept in
    xcpretty's own spec fixtures (the same file as the xcodebuild-specta-fail case)."""
    source = TOOLS / "xcpretty"
    need("ruby", str(source / "bin" / "xcpretty"))
    raw = source / "spec" / "fixtures" / "raw_specta_fail.txt"
    return run(f"ruby -I{source}/lib {source}/bin/xcpretty < {raw}", work)


# == Haskell: cabal and hspec ================================================================


def _cabal_project(work: Path) -> dict[str, str]:
    """A cabal project that builds offline: no package repository, only GHC's and Debian's
    installed packages (libghc-hspec-dev)."""
    (work / "cabal").mkdir()
    (work / "cabal" / "config").write_text("jobs: 1\n")
    write(work, {"cabal.project": "packages: .\n"})
    return {"CABAL_DIR": str(work / "cabal")}


@case("cabal-build-type-error", "cabal build all (cabal-install 3.4; a project of two "
      "packages: ledger-core, 60 modules with -Wall warnings and a type error in module 48, and "
      "ledger-app, which depends on it)")
def case_cabal_build(work: Path) -> bytes:
    need("cabal", "ghc")
    env = _cabal_project(work)
    write(work, {"cabal.project": "packages: core app\n"})
    modules = [f"Ledger.M{i:02d}" for i in range(60)]
    write(work, {"core/ledger-core.cabal": f"""
        cabal-version: 2.4
        name: ledger-core
        version: 0.1.0.0
        build-type: Simple

        library
          exposed-modules: {", ".join(modules)}
          hs-source-dirs: src
          build-depends: base
          ghc-options: -Wall
          default-language: Haskell2010
        """, "app/ledger-app.cabal": """
        cabal-version: 2.4
        name: ledger-app
        version: 0.1.0.0
        build-type: Simple

        executable ledger
          main-is: Main.hs
          build-depends: base, ledger-core
          default-language: Haskell2010
        """, "app/Main.hs": """
        import Ledger.M00 (total)

        main :: IO ()
        main = putStrLn (total [1, 2, 3])
        """})
    for i in range(60):
        body = ("total xs = show (sum xs) ++ length xs" if i == 48
                else "total xs = show (sum xs)")
        write(work, {f"core/src/Ledger/M{i:02d}.hs": f"module Ledger.M{i:02d} where\n\n"
                     f"import Data.List\n\ntotal :: [Int] -> String\n{body}\n\n"
                     f"unusedHelper x = x + {i}\n"})
    return run(["cabal", "build", "all"], work, env=env)


@case("cabal-hspec-failures", "cabal test (cabal-install 3.4 running an hspec 2.8 suite: 30 "
      "modules, 960 examples; two fail)")
def case_cabal_hspec(work: Path) -> bytes:
    need("cabal", "ghc")
    env = _cabal_project(work)
    specs = [f"Ledger.Invoice{i:02d}Spec" for i in range(30)]
    write(work, {"ledger.cabal": f"""
        cabal-version: 2.4
        name: ledger
        version: 0.1.0.0
        build-type: Simple

        library
          exposed-modules: Ledger
          hs-source-dirs: src
          build-depends: base
          default-language: Haskell2010

        test-suite spec
          type: exitcode-stdio-1.0
          main-is: Spec.hs
          other-modules: {", ".join(specs)}
          hs-source-dirs: test
          build-depends: base, hspec, ledger
          default-language: Haskell2010
        """, "src/Ledger.hs": """
        module Ledger (total, settle) where

        total :: [Int] -> Int
        total = sum

        settle :: Int -> String
        settle n
          | n == 417 = "refunded"
          | n == 838 = "void"
          | otherwise = "paid"
        """})
    main = ["import Test.Hspec", *[f"import qualified {s}" for s in specs], "",
            "main :: IO ()", "main = hspec $ do",
            *[f"  {s}.spec" for s in specs]]
    write(work, {"test/Spec.hs": "\n".join(main) + "\n"})
    for i, name in enumerate(specs):
        examples = []
        for e in range(32):
            n = i * 32 + e
            examples.append(f'    it "settles invoice {n}" $\n'
                            f'      settle {n} `shouldBe` "paid"')
        write(work, {f"test/{name.replace('.', '/')}.hs":
                     f"module {name} (spec) where\n\nimport Test.Hspec\nimport Ledger\n\n"
                     f"spec :: Spec\nspec = describe \"Ledger.settle (batch {i})\" $ do\n"
                     + "\n".join(examples) + "\n"})
    run(["cabal", "build", "--enable-tests", "all"], work, env=env)
    return run(["cabal", "test", "--enable-tests", "--test-show-details=direct",
                "--test-options=--seed=1234"], work, env=env)

# == Go ========================================================================================


def _go_module(work: Path) -> None:
    (work / "go.mod").write_text("module example.com/shop\n\ngo 1.19\n")


@case("go-test-noisy-one-fail", "go test -v ./... (3 packages, 360 tests that t.Log retried "
      "'error:' lines; one --- FAIL in the middle)")
def case_go_test(work: Path) -> bytes:
    need("go")
    _go_module(work)
    for pkg in ["cart", "billing", "shipping"]:
        tests = []
        for t in range(120):
            fail = (pkg, t) == ("billing", 57)
            tests.append(f"""
func TestRoute{t:03d}(t *testing.T) {{
	for attempt := 1; attempt <= 2; attempt++ {{
		t.Logf("error: upstream timeout on attempt %d, retrying", attempt)
	}}
	got, want := {"41" if fail else "42"}, 42
	if got != want {{
		t.Fatalf("invoice total for route {t}: got %d, want %d", got, want)
	}}
}}""")
        write(work, {f"{pkg}/{pkg}_test.go": f"package {pkg}\n\nimport \"testing\"\n"
                     + "".join(tests) + "\n"})
        write(work, {f"{pkg}/{pkg}.go": f"package {pkg}\n\nfunc Name() string {{ return \"{pkg}\" }}\n"})
    return run(["go", "test", "-v", "-count=1", "./..."], work,
               env={"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOCACHE": str(work / ".cache")})


@case("go-test-pass-noisy", "go test -v ./... (the same 3 packages, all passing, still logging "
      "'error:' retries)")
def case_go_test_pass(work: Path) -> bytes:
    need("go")
    _go_module(work)
    for pkg in ["cart", "billing", "shipping"]:
        tests = "".join(f"""
func TestRoute{t:03d}(t *testing.T) {{
	for attempt := 1; attempt <= 2; attempt++ {{
		t.Logf("error: upstream timeout on attempt %d, retrying", attempt)
	}}
}}""" for t in range(100))
        write(work, {f"{pkg}/{pkg}_test.go": f"package {pkg}\n\nimport \"testing\"\n" + tests,
                     f"{pkg}/{pkg}.go": f"package {pkg}\n\nfunc Name() string {{ return \"{pkg}\" }}\n"})
    return run(["go", "test", "-v", "-count=1", "./..."], work,
               env={"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOCACHE": str(work / ".cache")})


@case("go-build-x-errors", "go build -x ./... (long compile and link command lines, then type "
      "errors in one package)")
def case_go_build(work: Path) -> bytes:
    need("go")
    _go_module(work)
    for i in range(25):
        body = ("\treturn total + undefinedFee\n" if i == 24
                else "\treturn total\n")
        write(work, {f"pkg{i:02d}/calc.go": f"package pkg{i:02d}\n\nfunc Total(xs []int) int {{\n"
                     f"\ttotal := 0\n\tfor _, x := range xs {{\n\t\ttotal += x\n\t}}\n{body}}}\n"
                     + ("\nfunc Rate() int { return \"7\" }\n" if i == 24 else "")})
    return run(["go", "build", "-x", "./..."], work,
               env={"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOCACHE": str(work / ".cache")})


@case("go-panic-end", "go run . (3,000 log lines, then panic: index out of range with the "
      "goroutine trace)")
def case_go_panic(work: Path) -> bytes:
    need("go")
    _go_module(work)
    write(work, {"main.go": """
        package main

        import "log"

        type batch struct{ rows []int }

        func (b batch) last() int { return b.rows[len(b.rows)] }

        func process(id int, b batch) int { return b.last() * id }

        func main() {
        	for i := 0; i < 3000; i++ {
        		log.Printf("batch %d: 64 rows committed", i)
        	}
        	process(3000, batch{rows: []int{1, 2, 3}})
        }
        """})
    return run(["go", "run", "."], work,
               env={"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOCACHE": str(work / ".cache")})


# == JVM: Maven and Surefire ==================================================================

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>demo</groupId><artifactId>{artifact}</artifactId><version>1.0</version>
<properties><maven.compiler.release>17</maven.compiler.release>
<project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
<dependencies><dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId>
<version>5.10.2</version><scope>test</scope></dependency></dependencies>
<build><plugins>
<plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
<plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
<plugin><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
</plugins></build></project>
"""


def _maven_tests(work: Path, classes: int, failing: tuple[int, int] | None) -> None:
    (work / "pom.xml").write_text(_POM.format(artifact="ledger"))
    for c in range(classes):
        methods = []
        for m in range(12):
            expected = 100
            actual = 99 if (c, m) == failing else 100
            methods.append(f"""
    @Test void balance{m}() {{
        for (int i = 0; i < 5; i++) System.out.println("[ledger] class {c} method {m} step " + i + ": posted");
        assertEquals({expected}, {actual}, "balance of account {c}-{m}");
    }}""")
        write(work, {f"src/test/java/demo/Ledger{c:02d}Test.java":
                     "package demo;\nimport org.junit.jupiter.api.Test;\n"
                     "import static org.junit.jupiter.api.Assertions.*;\n"
                     f"class Ledger{c:02d}Test {{" + "".join(methods) + "\n}\n"})


@case("maven-surefire-failure", "mvn -o -B test (30 JUnit 5 classes that print to stdout; one "
      "assertion fails in the middle class)")
def case_maven_fail(work: Path) -> bytes:
    need("mvn")
    _maven_tests(work, 30, (14, 6))
    return run(["mvn", "-o", "-B", "test"], work)


@case("maven-pass", "mvn -o -B test (the same 30 classes, all passing)")
def case_maven_pass(work: Path) -> bytes:
    need("mvn")
    _maven_tests(work, 30, None)
    return run(["mvn", "-o", "-B", "test"], work)


@case("maven-compile-error", "mvn -o -B -e compile (javac: incompatible types; -e adds the "
      "stack trace)")
def case_maven_compile(work: Path) -> bytes:
    need("mvn")
    (work / "pom.xml").write_text(_POM.format(artifact="billing"))
    for i in range(20):
        body = 'int cents = "100";' if i == 11 else f"int cents = {i} * 100;"
        write(work, {f"src/main/java/demo/Invoice{i:02d}.java":
                     f"package demo;\npublic class Invoice{i:02d} {{\n  public int cents() {{\n"
                     f"    {body}\n    return cents;\n  }}\n}}\n"})
    return run(["mvn", "-o", "-B", "-e", "compile"], work)


@case("gradle-compile-error-middle", "gradle build --offline --console=plain --no-daemon "
      "(Gradle's java plugin, javac -Xlint:all: 300 classes with raw-type warnings, one "
      "incompatible-types error in the middle)")
def case_gradle(work: Path) -> bytes:
    need("gradle")
    (work / "settings.gradle").write_text("rootProject.name = 'ledger'\n")
    (work / "build.gradle").write_text(
        "apply plugin: 'java'\ntasks.withType(JavaCompile) {\n"
        "    options.compilerArgs += ['-Xlint:all', '-Xmaxwarns', '2000']\n}\n")
    for i in range(300):
        body = 'int cents = "100";' if i == 150 else f"int cents = {i} * 100;"
        write(work, {f"src/main/java/demo/Invoice{i:03d}.java":
                     f"package demo;\nimport java.util.*;\npublic class Invoice{i:03d} {{\n"
                     f"  public int cents() {{\n    List rows = new ArrayList();\n"
                     f"    rows.add(\"line {i}\");\n    {body}\n    return cents + rows.size();\n"
                     f"  }}\n}}\n"})
    return run(["gradle", "build", "--offline", "--console=plain", "--no-daemon"], work)


# == JavaScript test runners: Jest, Playwright ==================================================


@case("jest-one-failure", "jest --ci (40 suites, 800 tests; one toEqual fails in the middle)")
def case_jest(work: Path) -> bytes:
    (work / "package.json").write_text(json.dumps({"name": "web", "version": "1.0.0"}))
    for f in range(40):
        tests = []
        for t in range(20):
            got = "{ id: 7, status: 'shipped' }" if (f, t) == (21, 9) else "{ id: 7, status: 'paid' }"
            tests.append(f"  test('order {f}-{t} status', () => {{ "
                         f"expect({got}).toEqual({{ id: 7, status: 'paid' }}); }});")
        write(work, {f"src/orders{f:02d}.test.js": f"describe('orders {f}', () => {{\n"
                     + "\n".join(tests) + "\n});\n"})
    return run([str(NODE_BIN / "jest"), "--ci", "--verbose", "--runInBand"], work)


@case("playwright-chromium-failure", "playwright test (@playwright/test with Debian's chromium; "
      "150 page tests, one expect(locator).toHaveText fails)")
def case_playwright(work: Path) -> bytes:
    need("chromium", str(NODE_BIN / "playwright"))
    (work / "node_modules").symlink_to(TOOLS / "js" / "node_modules")
    write(work, {"playwright.config.js": """
        module.exports = {
          testDir: 'tests', workers: 1, reporter: 'list',
          use: { launchOptions: { executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] } },
        };
        """})
    tests = []
    for t in range(150):
        want = "Total: 41 EUR" if t == 70 else f"Total: {t} EUR"
        tests.append(f"""
test('cart page {t} shows its total', async ({{ page }}) => {{
  await page.setContent('<h1>Cart {t}</h1><p id="total">Total: {t} EUR</p>');
  console.log('cart {t}: rendered, 3 items');
  await expect(page.locator('#total')).toHaveText('{want}', {{ timeout: 500 }});
}});""")
    write(work, {"tests/cart.spec.js": "const { test, expect } = require('@playwright/test');\n"
                 + "".join(tests) + "\n"})
    return run([str(NODE_BIN / "playwright"), "test"], work, env={"CI": "1"})



# == Ruby: minitest, RSpec ====================================================================


@case("minitest-failure-end", "ruby -Ilib -e 'Dir[\"test/*_test.rb\"].each { require _1 }' -- -v "
      "(minitest, 25 classes x 16 tests; one assert_equal fails)")
def case_minitest(work: Path) -> bytes:
    need("ruby")
    for c in range(25):
        tests = []
        for t in range(16):
            got = "99" if (c, t) == (12, 7) else "100"
            tests.append(f"  def test_balance_{t}\n    assert_equal 100, {got}, "
                         f"'balance of account {c}-{t}'\n  end")
        write(work, {f"test/ledger{c:02d}_test.rb": "require 'minitest/autorun'\n\n"
                     f"class Ledger{c:02d}Test < Minitest::Test\n" + "\n".join(tests) + "\nend\n"})
    return run(["ruby", "-e", "Dir['test/*_test.rb'].sort.each { |f| require_relative f }",
                "--", "-v", "--seed", "1234"], work)


@case("rspec-failures-end", "rspec --format documentation (30 files, 600 examples; two fail)")
def case_rspec(work: Path) -> bytes:
    need("rspec")
    for f in range(30):
        examples = []
        for e in range(20):
            got = {(9, 4): "'refunded'", (23, 15): "'void'"}.get((f, e), "'paid'")
            examples.append(f"    it 'marks invoice {f}-{e} as paid' do\n"
                            f"      expect({got}).to eq('paid')\n    end")
        write(work, {f"spec/invoice{f:02d}_spec.rb": f"RSpec.describe 'Invoice batch {f}' do\n"
                     "  describe '#settle' do\n" + "\n".join(examples) + "\n  end\nend\n"})
    return run(["rspec", "--format", "documentation", "--no-color", "--order", "defined"], work)



def _rails_app(work: Path, invoices: int) -> None:
    """A small Rails 6.1 application (Debian's ruby-rails, no bundler): invoices with a
    customer, a show page, and one invoice (137) whose customer is missing, so its template
    raises."""
    write(work, {
        "bin/rails": """
            #!/usr/bin/env ruby
            APP_PATH = File.expand_path("../config/application", __dir__)
            require_relative "../config/boot"
            require "rails/commands"
            """,
        "config/boot.rb": "# Debian's system gems: no bundler.\nrequire \"pathname\"\n",
        "Rakefile": """
            require_relative "config/application"
            Rails.application.load_tasks
            """,
        "config/environments/development.rb": """
            Rails.application.configure do
              config.cache_classes = false
              config.consider_all_requests_local = true
              config.active_support.deprecation = :log
              config.active_record.migration_error = :page_load
            end
            """,
        "config/environments/test.rb": """
            Rails.application.configure do
              config.cache_classes = true
              config.consider_all_requests_local = true
              config.action_dispatch.show_exceptions = false
              config.active_support.deprecation = :stderr
            end
            """,
        "config.ru": """
            require_relative "config/environment"
            run Rails.application
            """,
        "config/application.rb": """
            require_relative "boot"
            require "rails"
            require "active_record/railtie"
            require "action_controller/railtie"
            require "action_view/railtie"
            require "rails/test_unit/railtie"

            module Shop
              class Application < Rails::Application
                config.load_defaults 6.1
                config.eager_load = false
                config.secret_key_base = "0" * 64
                config.hosts.clear
              end
            end
            """,
        "config/environment.rb": """
            require_relative "application"
            Rails.application.initialize!
            """,
        "config/database.yml": """
            development:
              adapter: sqlite3
              database: db/development.sqlite3
            test:
              adapter: sqlite3
              database: db/test.sqlite3
            """,
        "config/routes.rb": """
            Rails.application.routes.draw do
              resources :invoices, only: [:index, :show]
            end
            """,
        "db/schema.rb": """
            ActiveRecord::Schema.define(version: 2024_05_02_101500) do
              create_table :customers, force: true do |t|
                t.string :name
              end
              create_table :invoices, force: true do |t|
                t.string :number
                t.integer :customer_id
                t.decimal :total, precision: 10, scale: 2
              end
            end
            """,
        "db/seeds.rb": f"""
            {invoices}.times do |i|
              n = i + 1
              customer = Customer.create!(name: "Customer #{{n}}")
              Invoice.create!(id: n, number: "INV-#{{n}}", customer_id: n == 137 ? 999_999 : customer.id,
                              total: n * 10)
            end
            """,
        "app/models/application_record.rb": """
            class ApplicationRecord < ActiveRecord::Base
              self.abstract_class = true
            end
            """,
        "app/models/customer.rb": """
            class Customer < ApplicationRecord
              has_many :invoices
            end
            """,
        "app/models/invoice.rb": """
            class Invoice < ApplicationRecord
              belongs_to :customer, optional: true
            end
            """,
        "app/controllers/application_controller.rb": """
            class ApplicationController < ActionController::Base
            end
            """,
        "app/controllers/invoices_controller.rb": """
            class InvoicesController < ApplicationController
              def show
                @invoice = Invoice.find(params[:id])
              end
            end
            """,
        "app/views/layouts/application.html.erb": """
            <!DOCTYPE html>
            <html><head><title>Shop</title></head><body><%= yield %></body></html>
            """,
        "app/views/invoices/show.html.erb": """
            <h1>Invoice <%= @invoice.number %></h1>
            <p>Customer: <%= @invoice.customer.name %></p>
            <p>Total: <%= number_to_currency(@invoice.total) %></p>
            """,
    })
    (work / "bin" / "rails").chmod(0o755)


@case("rails-test-template-error", "bin/rails test -v (Rails 6.1, 1,000 integration tests; one "
      "raises ActionView::Template::Error in the middle, one assert_select fails later)")
def case_rails_test(work: Path) -> bytes:
    need("ruby")
    _rails_app(work, 300)
    tests = "\n".join(
        f'  test "shows invoice {n}" do\n'
        f'    get invoice_path({n})\n'
        f'    assert_response :success\n'
        f'    assert_select "p:last-of-type", "Total: ${n * 10 if n != 842 else 2420.5:,.2f}"\n'
        f'  end\n' for n in range(1, 1001))
    write(work, {
        "test/test_helper.rb": """
            ENV["RAILS_ENV"] ||= "test"
            require_relative "../config/environment"
            require "rails/test_help"

            class ActiveSupport::TestCase
              fixtures :all
            end
            """,
        "test/fixtures/customers.yml": """
            <% 1.upto(1000) do |n| %>
            customer_<%= n %>:
              id: <%= n %>
              name: Customer <%= n %>
            <% end %>
            """,
        "test/fixtures/invoices.yml": """
            <% 1.upto(1000) do |n| %>
            invoice_<%= n %>:
              id: <%= n %>
              number: INV-<%= n %>
              customer_id: <%= n == 137 ? 999_999 : n %>
              total: <%= n * 10 %>
            <% end %>
            """,
        "test/integration/invoices_test.rb": "require \"test_helper\"\n\n"
            "class InvoicesTest < ActionDispatch::IntegrationTest\n" + tests + "end\n",
    })
    return run(["bin/rails", "test", "-v", "--seed", "1234"], work, env={"RAILS_ENV": "test"})


@case("rails-server-500-log", "bin/rails server -u webrick (Rails 6.1 in development, logging "
      "to the console) while curl requests 300 invoices; one page raises "
      "ActionView::Template::Error (500), one id is missing (404)")
def case_rails_server(work: Path) -> bytes:
    need("ruby", "curl")
    _rails_app(work, 300)
    env = {"RAILS_ENV": "development"}
    run("bin/rails runner 'load \"db/schema.rb\"; load \"db/seeds.rb\"' >/dev/null", work, env=env)
    run("""
        bin/rails server -u webrick -b 127.0.0.1 -p 38137 > server.log 2>&1 &
        server=$!
        for i in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:38137/invoices/1 && break; sleep 0.3; done
        for i in $(seq 2 300); do
          id=$i; [ $i -eq 221 ] && id=9999
          curl -s -o /dev/null -w '%{http_code}\\n' http://127.0.0.1:38137/invoices/$id >> codes.txt
        done
        kill -INT $server; wait $server
        """, work, env=env)
    return (work / "server.log").read_bytes()

# == R: testthat, R CMD check =================================================================


@case("testthat-failure", "Rscript -e 'testthat::test_dir(\"tests\", reporter = \"summary\")' "
      "(40 files, 400 tests that print; one expect_equal fails)")
def case_testthat(work: Path) -> bytes:
    need("Rscript")
    for f in range(40):
        lines = []
        for t in range(10):
            got = "118" if (f, t) == (17, 3) else "120"
            lines.append(f'test_that("invoice {f}-{t} total", {{\n'
                         f'  cat("pricing invoice {f}-{t}: 12 lines, 3 discounts\\n")\n'
                         f'  expect_equal({got}, 120)\n}})')
        write(work, {f"tests/test-invoice{f:02d}.R": "\n".join(lines) + "\n"})
    return run(["Rscript", "-e", "testthat::test_dir('tests', reporter = 'summary')"], work)


@case("r-cmd-check-error", "R CMD build + R CMD check --no-manual (a package whose example "
      "fails)")
def case_r_check(work: Path) -> bytes:
    need("R")
    write(work, {"ledger/DESCRIPTION": """
        Package: ledger
        Title: Ledger Sums
        Version: 0.1.0
        Authors@R: person("A", "B", email = "a@example.org", role = c("aut", "cre"))
        Description: Sums ledger rows for the corpus.
        License: MIT + file LICENSE
        Encoding: UTF-8
        """, "ledger/LICENSE": "YEAR: 2026\nCOPYRIGHT HOLDER: corpus\n",
        "ledger/NAMESPACE": "export(balance)\n",
        "ledger/R/balance.R": """
        balance <- function(rows) {
          if (!is.numeric(rows)) stop("rows must be numeric, got ", class(rows))
          sum(rows)
        }
        """, "ledger/man/balance.Rd": """
        \\name{balance}
        \\alias{balance}
        \\title{Balance}
        \\usage{balance(rows)}
        \\arguments{\\item{rows}{numbers}}
        \\value{the sum}
        \\description{Sums rows.}
        \\examples{
        balance(c(1, 2, 3))
        balance(c("1", "2"))
        }
        """})
    return run("R CMD build ledger && R CMD check --no-manual ledger_0.1.0.tar.gz", work,
               env={"_R_CHECK_FORCE_SUGGESTS_": "false"})


# == Haskell: GHC through cabal ================================================================


@case("ghc-keep-going-type-error", "ghc --make -fkeep-going -Wall -isrc (40 modules with -Wall "
      "warnings; one type error in the middle; cabal build could not run offline here: it "
      "wants the package index)")
def case_ghc(work: Path) -> bytes:
    need("ghc")
    for i in range(40):
        body = 'total xs = sum xs ++ " EUR"' if i == 20 else "total xs = sum xs"
        write(work, {f"src/Ledger/M{i:02d}.hs": f"module Ledger.M{i:02d} where\n\n"
                     f"import Data.List\n\ntotal :: [Int] -> Int\n{body}\n\n"
                     f"unusedHelper x = x + {i}\n"})
    return run(["ghc", "--make", "-fkeep-going", "-Wall", "-isrc", "-outputdir", "build",
                *[f"src/Ledger/M{i:02d}.hs" for i in range(40)]], work)


# == ANSI colour and carriage-return progress ==================================================


@case("cargo-ansi-progress-error", "cargo build with CARGO_TERM_COLOR=always and "
      "CARGO_TERM_PROGRESS_WHEN=always (ANSI colours, \\r progress bar; E0308 in the middle)")
def case_cargo_ansi(work: Path) -> bytes:
    need("cargo")
    members = ["core_types", "codec", "ledger", "report", "cli"]
    (work / "Cargo.toml").write_text(
        "[workspace]\nresolver = \"2\"\nmembers = [" + ", ".join(f'"{m}"' for m in members)
        + "]\n")
    for m in members:
        fns = []
        for i in range(10):
            if m == "ledger" and i == 5:
                fns.append(f"pub fn balance_{i}(entries: &[i64]) -> u32 {{\n"
                           f"    let total: i64 = entries.iter().sum();\n    total\n}}")
            else:
                fns.append(f"pub fn step_{i}(input: u32) -> u32 {{\n    let unused_{i} = input"
                           f" * 2;\n    input + {i}\n}}")
        write(work, {f"{m}/Cargo.toml": f'[package]\nname = "{m}"\nversion = "0.1.0"\n'
                                         f'edition = "2021"\n',
                     f"{m}/src/lib.rs": "\n\n".join(fns) + "\n"})
    return run(["cargo", "build", "--offline", "--keep-going"], work,
               env={"CARGO_TERM_COLOR": "always", "CARGO_TERM_PROGRESS_WHEN": "always",
                    "CARGO_TERM_PROGRESS_WIDTH": "100", "CARGO_BUILD_JOBS": "1"})


@case("pytest-color-failure-middle", "python -m pytest -v --color=yes -p no:cacheprovider "
      "(600 tests; one fails in the middle; ANSI colours)")
def case_pytest_color(work: Path) -> bytes:
    write(work, {"test_catalog.py": """
        import pytest

        @pytest.mark.parametrize("sku", range(600))
        def test_price(sku):
            price = 999 if sku == 311 else 1000
            assert price == 1000, f"price of sku {sku} drifted"
        """})
    return run([sys.executable, "-m", "pytest", "-v", "--color=yes", "-p", "no:cacheprovider",
                "test_catalog.py"], work)


@case("pytest-pass", "python -m pytest -v -p no:cacheprovider (700 tests, all pass)")
def case_pytest_pass(work: Path) -> bytes:
    write(work, {"test_catalog.py": """
        import pytest

        @pytest.mark.parametrize("sku", range(700))
        def test_price(sku):
            assert sku * 0 == 0
        """})
    return run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                "test_catalog.py"], work)



# == web-platform tests and Karma ===============================================================


@case("wpt-runner-subtest-fail", "wpt-runner tests/ (WPT testharness.js tests in jsdom: 40 files"
      " x 25 subtests; one assert_equals fails in the middle)")
def case_wpt(work: Path) -> bytes:
    need(str(NODE_BIN / "wpt-runner"))
    for f in range(40):
        subtests = []
        for t in range(25):
            got = "'block'" if (f, t) == (19, 11) else "'grid'"
            subtests.append(f"test(() => {{ const el = document.createElement('div'); "
                            f"el.style.display = 'grid'; assert_equals({got}, el.style.display, "
                            f"'display of box {f}-{t}'); }}, 'box {f}-{t} keeps display: grid');")
        write(work, {f"tests/layout-{f:02d}.html":
                     "<!DOCTYPE html>\n<meta charset=utf-8>\n"
                     f"<title>layout {f}</title>\n"
                     "<script src=\"/resources/testharness.js\"></script>\n"
                     "<script src=\"/resources/testharnessreport.js\"></script>\n<script>\n"
                     + "\n".join(subtests) + "\n</script>\n"})
    return run([str(NODE_BIN / "wpt-runner"), "tests"], work)


@case("karma-chrome-jasmine-fail", "karma start --single-run (Jasmine in headless chromium: "
      "500 specs that console.log; one toEqual fails)")
def case_karma(work: Path) -> bytes:
    need("chromium", str(NODE_BIN / "karma"))
    (work / "node_modules").symlink_to(TOOLS / "js" / "node_modules")
    write(work, {"karma.conf.js": """
        module.exports = (config) => config.set({
          frameworks: ['jasmine'], files: ['spec/*.js'], singleRun: true,
          browsers: ['ChromeHeadlessCI'], reporters: ['progress'], client: { captureConsole: true },
          customLaunchers: { ChromeHeadlessCI: { base: 'ChromeHeadless', flags: ['--no-sandbox'] } },
        });
        """})
    for f in range(10):
        specs = []
        for t in range(50):
            got = "{ sku: 'A-7', qty: 2 }" if (f, t) == (6, 21) else "{ sku: 'A-7', qty: 3 }"
            specs.append(f"  it('keeps line {f}-{t}', () => {{ console.log('cart {f}-{t}: "
                         f"3 lines priced'); expect({got}).toEqual({{ sku: 'A-7', qty: 3 }}); }});")
        write(work, {f"spec/cart{f}.spec.js": f"describe('cart {f}', () => {{\n"
                     + "\n".join(specs) + "\n});\n"})
    return run([str(NODE_BIN / "karma"), "start", "karma.conf.js"], work,
               env={"CHROME_BIN": "/usr/bin/chromium"})



# == failures at the start of a long output ====================================================


@case("python-startup-traceback", "python server.py (a plugin fails to load at startup and is "
      "logged with its traceback; the server then serves 3,000 requests)")
def case_py_startup(work: Path) -> bytes:
    write(work, {"server.py": """
        import importlib, logging, sys
        logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        log = logging.getLogger("server")

        def load_plugins(names):
            loaded = []
            for name in names:
                try:
                    loaded.append(importlib.import_module(name))
                except ImportError:
                    log.exception("plugin %s could not be loaded; continuing without it", name)
            return loaded

        load_plugins(["json", "billing_exporter_v2", "csv"])
        for i in range(3000):
            log.info("GET /orders/%d 200 %dms", i, i % 40 + 3)
        """})
    return run([sys.executable, "server.py"], work)


@case("ruff-then-pytest-ci", "CI script: ruff check src (fails), then python -m pytest -v "
      "(500 tests pass)")
def case_ruff_pytest(work: Path) -> bytes:
    write(work, {"src/app.py": """
        import os


        def handler(event):
            return respond(event["id"])
        """, "tests/test_app.py": """
        import pytest

        @pytest.mark.parametrize("n", range(500))
        def test_route(n):
            assert n >= 0
        """})
    (work / "ruff.toml").write_text('[lint]\nselect = ["F"]\n')
    return run(f"{PY_BIN / 'ruff'} check --no-cache --output-format=full src; "
               f"{sys.executable} -m pytest -v -p no:cacheprovider tests", work)


@case("gcc-first-unit-error", "make -k (200 C files; the first fails to compile, the rest "
      "compile with warnings)")
def case_gcc_first(work: Path) -> bytes:
    need("gcc", "make")
    for i in range(200):
        body = "return a * rate_table[a];" if i == 0 else f"return a + {i};"
        write(work, {f"unit{i:03d}.c": f"static int helper{i}(int a, int b) {{ int unused{i}; "
                     f"int spare{i} = b; {body} }}\nint entry{i}(int a) {{ return helper{i}(a, 2); }}\n"})
    objects = " ".join(f"unit{i:03d}.o" for i in range(200))
    (work / "Makefile").write_text(f"all: {objects}\n%.o: %.c\n\tgcc -Wall -Wextra -c $< -o $@\n")
    return run(["make", "-k"], work, env={"LC_ALL": "C"})


@case("go-vet-then-test", "CI script: go vet ./... (fails), then go test -v ./... (passes)")
def case_go_vet(work: Path) -> bytes:
    need("go")
    _go_module(work)
    write(work, {"report/report.go": "package report\n\nimport \"fmt\"\n\n"
                 "func Line(total int) string {\n\treturn fmt.Sprintf(\"total: %d EUR\", "
                 "\"total\")\n}\n"})
    for pkg in ["cart", "billing"]:
        tests = "".join(f"""
func TestRoute{t:03d}(t *testing.T) {{
	t.Logf("route {t}: 200 OK in %dms", {t % 17})
}}""" for t in range(250))
        write(work, {f"{pkg}/{pkg}_test.go": f"package {pkg}\n\nimport \"testing\"\n" + tests,
                     f"{pkg}/{pkg}.go": f"package {pkg}\n\nfunc Name() string {{ return \"{pkg}\" }}\n"})
    env = {"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOCACHE": str(work / ".cache")}
    return run("go vet ./...; go test -v -count=1 ./cart ./billing", work, env=env)


# == main ======================================================================================


def versions() -> dict[str, str]:
    """The versions of the tools, for the manifest."""
    probes = {
        "python": [sys.executable, "--version"], "node": ["node", "--version"],
        "npm": ["npm", "--version"], "cargo": ["cargo", "--version"],
        "gcc": ["gcc", "--version"], "clang": ["clang", "--version"],
        "go": ["go", "version"], "ruby": ["ruby", "--version"], "R": ["R", "--version"],
        "ghc": ["ghc", "--version"], "cabal": ["cabal", "--version"],
        "mvn": ["mvn", "-v"], "java": ["java", "-version"], "perl": ["perl", "-v"],
        "cmake": ["cmake", "--version"], "make": ["make", "--version"],
        "ruff": [str(PY_BIN / "ruff"), "--version"], "mypy": [str(PY_BIN / "mypy"), "--version"],
        "tsc": [str(NODE_BIN / "tsc"), "--version"], "eslint": [str(NODE_BIN / "eslint"), "--version"],
        "jest": [str(NODE_BIN / "jest"), "--version"], "chromium": ["chromium", "--version"],
        "rspec": ["rspec", "--version"], "gradle": ["gradle", "--version"],
        "rails": ["ruby", "-rrails", "-e", "puts 'Rails ' + Rails.version"],
        "hspec": ["ghc-pkg", "field", "hspec", "version"],
        "xcpretty": ["ruby", f"-I{TOOLS}/xcpretty/lib", f"{TOOLS}/xcpretty/bin/xcpretty",
                     "--version"],
    }
    found = {}
    for name, argv in probes.items():
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout or ""
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = [line for line in (out.strip().splitlines()) if line.strip()]
        if lines:
            found[name] = lines[0].strip()[:100]
    found["os"] = platform.platform()
    return found


def relocate(lines: list[str], text: str, near: int) -> int | None:
    """The 1-based number of the line whose text is *text*, nearest to line *near*."""
    hits = [i + 1 for i, line in enumerate(lines) if line.rstrip("\r") == text]
    return min(hits, key=lambda n: abs(n - near)) if hits else None


def generate(names: list[str]) -> None:
    CORPUS.mkdir(parents=True, exist_ok=True)
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {"cases": []}
    by_name = {c["name"]: c for c in manifest["cases"]}
    tool_versions = versions()
    for name in names:
        print(f"{name}:", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
            try:
                output = CASES[name](Path(tmp))
            except FileNotFoundError as exc:
                print(f"  skipped: {exc} not installed", file=sys.stderr)
                continue
            text = output.decode("utf-8", "replace").replace(tmp, "/tmp/work")
        path = CORPUS / f"{name}.txt"
        path.write_text(text, newline="")
        entry = by_name.get(name)
        if entry is None:
            print(f"  new case: add it to {MANIFEST.name} and mark its key lines by hand",
                  file=sys.stderr)
            continue
        entry.setdefault("made_by", {})["command"] = COMMANDS[name]
        entry["made_by"]["versions"] = tool_versions
        lines = text.split("\n")
        for key in entry.get("key_lines", []):
            moved = relocate(lines, key["text"], key["line"])
            if moved is None:
                print(f"  key line {key['line']} not found again: {key['text'][:60]!r}; "
                      "re-mark it by hand", file=sys.stderr)
            else:
                key["line"] = moved
    MANIFEST.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="cases to re-create (default: none)")
    parser.add_argument("--all", action="store_true", help="re-create every generated case")
    parser.add_argument("--list", action="store_true", help="list the cases")
    parser.add_argument("--out", type=Path, help="write outputs here instead (no manifest)")
    args = parser.parse_args()
    if args.list:
        for name, command in COMMANDS.items():
            print(f"{name}: {command}")
        return
    names = list(CASES) if args.all else args.cases
    unknown = [n for n in names if n not in CASES]
    if unknown:
        parser.error(f"unknown cases: {', '.join(unknown)}; see --list")
    if args.out:
        global CORPUS, MANIFEST
        CORPUS, MANIFEST = args.out, args.out / "manifest.json"
    generate(names)


if __name__ == "__main__":
    main()
