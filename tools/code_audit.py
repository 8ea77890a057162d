"""Audit the package's public face: ``__all__``, numpydoc Parameters, References, long functions.

    python tools/code_audit.py [PATH ...] [-v] [--check]

Each PATH is a package directory or a module file (default: ``nvlearn``). The report lists
the longest functions, the modules without an ``__all__``, how many public functions and
methods of three or more arguments (``self`` / ``cls`` not counted) have a numpydoc
``Parameters`` section, and how many packages cite literature in a ``References`` section
(in a module's or a function's docstring). ``-v`` also lists the functions missing a
Parameters section.

``--check`` exits with status 1 when, under the given paths, a module (other than a
``__main__.py``) has no ``__all__`` or a public function of three or more arguments has no
Parameters section. ``--strict`` (implies ``--check``) also fails such a function when its
Parameters section leaves an argument out (or names it without a line saying what it is) or
when it has no Returns / Yields section (``__init__`` needs none).
``tests/test_public_face.py`` runs ``--strict`` over the packages already done. The audit
reads source with :mod:`ast` only; nothing is imported.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

PARAMETERS = re.compile(r"^\s*Parameters\n\s*-{3,}", re.M)
REFERENCES = re.compile(r"^\s*References\n\s*-{3,}", re.M)
RETURNS = re.compile(r"^\s*(Returns|Yields)\n\s*-{3,}", re.M)
# the body of a Parameters section: up to the next numpydoc heading (a line, then dashes)
PARAMETER_BODY = re.compile(r"^Parameters\n-{3,}\n(.*?)(?=^\w[\w ]*\n-{3,}|\Z)", re.M | re.S)


@dataclass
class Audit:
    """What the audit found under the given paths."""

    lengths: list[tuple[int, str]] = field(default_factory=list)
    no_all: list[str] = field(default_factory=list)
    public3: list[str] = field(default_factory=list)
    missing_parameters: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    packages: set[str] = field(default_factory=set)
    cited: set[str] = field(default_factory=set)


def module_files(paths: list[Path]) -> list[Path]:
    """Every ``.py`` file under ``paths`` (directories searched recursively), sorted."""
    files: set[Path] = set()
    for path in paths:
        files.update(path.rglob("*.py") if path.is_dir() else [path])
    return sorted(files)


def package_of(path: Path) -> str:
    """The package a file counts towards: its directory, or the module itself at top level."""
    if path.name == "__init__.py" or path.parent.name != "nvlearn":
        return str(path.parent)
    return str(path.with_suffix(""))


def has_all(tree: ast.Module) -> bool:
    """Whether the module assigns ``__all__`` at top level."""
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return True
    return False


def public_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """Top-level public functions, and public methods (plus ``__init__``) of public classes."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if not node.name.startswith("_"):
                found.append(node)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            found += [m for m in node.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                      and (not m.name.startswith("_") or m.name == "__init__")]
    return found


def n_arguments(fn: ast.FunctionDef) -> int:
    """Named arguments of ``fn``, not counting a leading ``self`` or ``cls``."""
    a = fn.args
    n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
    first = (a.posonlyargs + a.args)[:1]
    return n - 1 if first and first[0].arg in ("self", "cls") else n


def argument_names(fn: ast.FunctionDef) -> list[str]:
    """Names of ``fn``'s arguments as a docstring lists them (``*args`` as ``args``)."""
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names = [n for n in names if n not in ("self", "cls")]
    return names + [x.arg for x in (a.vararg, a.kwarg) if x is not None]


def documentation_gaps(fn: ast.FunctionDef) -> list[str]:
    """What ``fn``'s numpydoc lacks: undocumented arguments, and a Returns section."""
    doc = ast.get_docstring(fn) or ""
    body = PARAMETER_BODY.search(doc)
    lines = body.group(1).rstrip("\n").splitlines() if body else []
    described: set[str] = set()
    for i, line in enumerate(lines):
        if line and not line[0].isspace():
            has_text = i + 1 < len(lines) and lines[i + 1][:1].isspace()
            if has_text:
                described.update(n.strip().lstrip("*") for n in line.split(":")[0].split(","))
    gaps = [f"argument {n!r}" for n in argument_names(fn) if n not in described]
    if fn.name != "__init__" and not RETURNS.search(doc):
        gaps.append("a Returns section")
    return gaps


def audit(paths: list[Path]) -> Audit:
    """Read every module under ``paths`` and collect the findings."""
    result = Audit()
    for path in module_files(paths):
        tree = ast.parse(path.read_text(), filename=str(path))
        package = package_of(path)
        result.packages.add(package)
        if not has_all(tree) and path.name != "__main__.py":
            result.no_all.append(str(path))
        docs = [ast.get_docstring(tree) or ""]
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                result.lengths.append((node.end_lineno - node.lineno + 1,
                                       f"{path}:{node.lineno} {node.name}"))
                docs.append(ast.get_docstring(node) or "")
        if any(REFERENCES.search(doc) for doc in docs):
            result.cited.add(package)
        for fn in public_functions(tree):
            if n_arguments(fn) >= 3:
                where = f"{path}:{fn.lineno} {fn.name}"
                result.public3.append(where)
                if not PARAMETERS.search(ast.get_docstring(fn) or ""):
                    result.missing_parameters.append(where)
                gaps = documentation_gaps(fn)
                if gaps:
                    result.incomplete.append(f"{where}: missing {', '.join(gaps)}")
    result.lengths.sort(reverse=True)
    return result


def report(result: Audit, verbose: bool = False) -> None:
    """Print the findings."""
    print("longest functions:")
    for n, where in result.lengths[:15]:
        print(f"  {n} {where}")
    print("functions > 60 lines:", sum(1 for n, _ in result.lengths if n > 60))
    print("modules without __all__:", len(result.no_all))
    for path in result.no_all:
        print(f"  {path}")
    n3 = len(result.public3)
    print(f"public functions with 3+ args: {n3}, "
          f"with Parameters: {n3 - len(result.missing_parameters)}")
    if verbose:
        for where in result.missing_parameters:
            print(f"  {where}")
    print(f"  of which fully documented (every argument, Returns): {n3 - len(result.incomplete)}")
    if verbose:
        for where in result.incomplete:
            print(f"  {where}")
    print(f"packages with a References section: {len(result.cited)} of {len(result.packages)}")
    if verbose:
        for package in sorted(result.packages - result.cited):
            print(f"  no References: {package}")


def main(argv: list[str] | None = None) -> int:
    """Run the audit from the command line; the exit status is 1 if ``--check`` fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[Path("nvlearn")],
                        help="packages or modules to audit (default: nvlearn)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list the functions missing a Parameters section")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a module lacks __all__ or a public function of 3+ "
                             "arguments lacks a Parameters section")
    parser.add_argument("--strict", action="store_true",
                        help="--check, and also exit 1 if such a function leaves an argument "
                             "undescribed or has no Returns section")
    args = parser.parse_args(argv)
    result = audit(args.paths)
    report(result, verbose=args.verbose or args.check or args.strict)
    failed = bool(result.no_all or result.missing_parameters)
    if args.strict:
        failed = failed or bool(result.incomplete)
    return 1 if (args.check or args.strict) and failed else 0


if __name__ == "__main__":
    sys.exit(main())
