"""The shape of the package: small modules and functions, no import cycle, a torch-free contract, lazy
optional dependencies, and docs that live in the repository."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "border_py"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
OPTIONAL = (
    "mlflow",
    "ray",
    "minari",
    "ale_py",
    "onnx",
    "onnxruntime",
    "matplotlib",
    "d3rlpy",
    "moviepy",
    "imageio",
    "imageio_ffmpeg",
    "onnxscript",
    "tensorboard",
    "optuna",
    "gymnasium_robotics",
    "mujoco",
    "stable_baselines3",  # the docs run it beside its port (tests/docs); the package never imports it
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _every_python_file(
    folders: tuple[str, ...] = ("examples", "benchmarks", "campaigns", "tests"),
) -> dict[str, Path]:
    """The package and ``folders`` (by default the examples, the benchmarks, the campaigns and the tests:
    the size rules hold for every one)."""
    found = dict(_modules())
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def test_no_module_is_over_400_lines_and_no_function_over_60() -> None:
    long_modules, long_functions = [], []
    files = _every_python_file()
    assert {"examples.custom_env", "benchmarks.run", "border_py.run.cli"} <= set(files)
    for name, path in files.items():
        text = path.read_text()
        if len(text.splitlines()) > MAX_MODULE_LINES:
            long_modules.append(f"{name} ({len(text.splitlines())} lines)")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long_functions.append(f"{name}.{node.name} ({lines} lines)")
    assert long_modules == []
    assert long_functions == []


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The border_py modules ``name`` imports at run time: when it is imported, and inside its functions
    when they run (``TYPE_CHECKING`` blocks left out). A lazy import inside a function still closes a
    circle at run time, so it counts."""
    found: set[str] = set()
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'":
            continue  # runs only as the program (``python -m``), a module of its own that nothing imports
        for sub in ast.walk(node):
            if isinstance(sub, ast.Import):
                found |= {a.name for a in sub.names if a.name in modules}
            elif isinstance(sub, ast.ImportFrom):
                base = sub.module or ""
                if sub.level:
                    parent = package.split(".")[: len(package.split(".")) - sub.level + 1]
                    base = ".".join([*parent, base])
                for alias in sub.names:
                    target = f"{base}.{alias.name}"
                    found.add(target if target in modules else base)
    return {m for m in found if m in modules and m != name}


CODE_FOLDERS = ("examples", "benchmarks", "campaigns")
"""The repository's programs beside the package: their imports close no cycle either."""


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (its nodes, the first repeated at the end), or ``None``."""
    done: set[str] = set()

    def visit(name: str, stack: list[str]) -> list[str] | None:
        if name in stack:
            return [*stack[stack.index(name) :], name]
        if name in done:
            return None
        for target in sorted(graph.get(name, ())):
            found = visit(target, [*stack, name])
            if found:
                return found
        done.add(name)
        return None

    return next((c for c in (visit(name, []) for name in sorted(graph)) if c), None)


def _import_graph() -> dict[str, set[str]]:
    """Each module of the package and of `CODE_FOLDERS` and the modules of both it imports at run time."""
    modules = _every_python_file(CODE_FOLDERS)
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_the_import_graph_has_no_cycle() -> None:
    graph = _import_graph()
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
    assert "border_py.trainer.bookkeeper" in graph["border_py.trainer.loop"]  # the walk sees imports
    assert "border_py.agents.sac.agent" in graph["border_py.agents.sac.config"]  # and lazy ones
    assert "campaigns.mujoco_report" in graph["campaigns.mujoco"]  # and the campaigns'
    assert {"examples.dqn_cartpole", "benchmarks.run", "campaigns.jobs"} <= set(graph)


def _floor(module: str) -> str:
    """The floor a module stands on: its package below ``border_py`` (``border_py.agents``), a module
    directly in ``border_py`` (``border_py.plot``), or its folder beside it (``campaigns``)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "border_py" else parts[0]


def test_the_floors_have_no_cycle() -> None:
    """No package reaches back up to one that imports it: the agents do not import the exporters that
    import them, the plots do not import the run layer that draws them."""
    floors: dict[str, set[str]] = {}
    for name, targets in _import_graph().items():
        floors.setdefault(_floor(name), set()).update(_floor(t) for t in targets if _floor(t) != _floor(name))
    cycle = _cycle(floors)
    assert cycle is None, "floors importing each other: " + " -> ".join(cycle or [])
    assert "border_py.agents" in floors["border_py.export"]  # the floors see the imports
    assert "border_py.numpy_mlp" in floors["border_py.agents"]


RUN_LAYER = {"arguments", "cli", "codec", "commands", "experiment", "held_warnings", "outputs", "pairing",
             "policy", "program", "recording", "rundir", "saved", "sizes", "tags", "tune", "zoo",
             "zoo_datasets"}  # fmt: skip
"""What ``border_py.run`` holds: the CLI's verbs and what an experiment needs, nothing a maintainer's
campaign alone uses (those live in ``campaigns/``)."""


def test_the_run_layer_holds_the_application_only() -> None:
    found = {p.stem for p in (ROOT / "border_py" / "run").glob("*.py") if p.stem != "__init__"}
    assert found == RUN_LAYER
    reaching_out = [
        name
        for name, path in _modules().items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom | ast.Import)
        and any(n.startswith(("campaigns", "benchmarks")) for n in _imported_names(node))
    ]
    assert reaching_out == []  # the package never imports a campaign or a benchmark


def _imported_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    return [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]


_BLOCKED_IMPORT = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None  # any import of it now fails
import border_py.base, border_py.record
import border_py
from border_py import Step, Record
loaded = [m for m, module in sys.modules.items() if module is not None]
print(sorted(m for m in loaded if m.split(".")[0] in {optional!r}))
"""


def test_the_contract_imports_without_torch_and_the_package_without_optional_dependencies() -> None:
    code = _BLOCKED_IMPORT.format(blocked=["torch", *OPTIONAL], optional=OPTIONAL)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_nothing_in_the_repository_points_outside_it() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.split()
    texts = [f for f in tracked if f.endswith((".md", ".py", ".toml", ".yaml", ".cfg")) or f == "Makefile"]
    pointing = [f for f in texts if "../shared" in (ROOT / f).read_text()]
    assert pointing == [f for f in pointing if f.endswith("test_structure.py")]
    assert (ROOT / "docs" / "architecture.md").is_file()


def test_the_version_is_the_projects_and_the_changelog_releases_it() -> None:
    import tomllib

    import border_py

    root = Path(__file__).resolve().parents[2]
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    assert border_py.__version__ == version
    assert re.search(
        rf"^## {re.escape(version)} \(\d{{4}}-\d\d-\d\d\)$", (root / "CHANGELOG.md").read_text(), re.M
    )
