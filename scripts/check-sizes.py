#!/usr/bin/python3
"""Checks that a reader can hold every piece of Source/: no function over --max-function lines
(default 120) and no file over --max-file lines (default 600). Function extents come from
universal-ctags (scripts/install-deps.sh installs it); a lambda counts as a function of its own.
Prints each piece over its limit, longest first, and exits 1 if there is any.

Usage: scripts/check-sizes.py [--max-function N] [--max-file N] [--all] [ROOT]
"""
import argparse
import json
import pathlib
import subprocess
import sys

SUFFIXES = {".h", ".cpp"}


def functions(paths):
    """(lines, file, line, name) for every function ctags finds in paths."""
    out = subprocess.run(["ctags", "--output-format=json", "--fields=+ne", "--kinds-c++=f",
                          "--language-force=C++", "-o", "-", *map(str, paths)],
                         check=True, capture_output=True, text=True).stdout
    for row in out.splitlines():
        tag = json.loads(row)
        if tag.get("_type") != "tag" or "end" not in tag:
            continue
        scope = [part for part in tag.get("scope", "").split("::") if part and not part.startswith("__anon")]
        name = tag["name"]
        if name.startswith("__anon"):
            name = "(a lambda in " + (scope[-1] if scope else "?") + ")"
        elif scope:
            name = scope[-1] + "::" + name
        yield tag["end"] - tag["line"] + 1, tag["path"], tag["line"], name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-function", type=int, default=120)
    parser.add_argument("--max-file", type=int, default=600)
    parser.add_argument("--all", action="store_true", help="list the 20 longest of each, not only those over")
    parser.add_argument("root", nargs="?", default="Source")
    args = parser.parse_args()
    paths = sorted(p for p in pathlib.Path(args.root).rglob("*") if p.suffix in SUFFIXES)
    if not paths:
        sys.exit(f"no sources under {args.root}")
    files = sorted(((len(p.read_text(errors="replace").splitlines()), str(p)) for p in paths), reverse=True)
    funcs = sorted(functions(paths), reverse=True)
    long_files = [f for f in files if f[0] > args.max_file]
    long_funcs = [f for f in funcs if f[0] > args.max_function]
    shown_files = files[:20] if args.all else long_files
    shown_funcs = funcs[:20] if args.all else long_funcs
    for lines, path in shown_files:
        print(f"file     {lines:5d} lines  {path}")
    for lines, path, line, name in shown_funcs:
        print(f"function {lines:5d} lines  {path}:{line}  {name}")
    print(f"{len(paths)} files, {len(funcs)} functions: {len(long_files)} files over {args.max_file} lines, "
          f"{len(long_funcs)} functions over {args.max_function} lines")
    return 1 if long_files or long_funcs else 0


if __name__ == "__main__":
    sys.exit(main())
