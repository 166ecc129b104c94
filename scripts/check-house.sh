#!/usr/bin/env bash
# The house's checks, run by CI (.ci/run): the code is formatted as .clang-format says, every
# function and file is short enough to hold (scripts/check-sizes.py), the model file's format is
# known in one place (its keys spelled only in Source/engine/file/), and JSON is parsed by one reader
# (engine/file/Json; nlohmann only writes the CLI's output). Prints every finding; exits 1 if any.
# Usage: scripts/check-house.sh        (scripts/install-deps.sh installs clang-format-14 and ctags)
set -uo pipefail
cd "$(dirname "$0")/.."
failed=0

echo "== formatting (clang-format-14 --dry-run -Werror)"
mapfile -t sources < <(git ls-files 'Source/*.cpp' 'Source/*.h' 'Tests/*.cpp' 'Tests/*.h' 'Benchmarks/*.cpp' 'Benchmarks/*.h')
if ! clang-format-14 --dry-run -Werror "${sources[@]}"; then
    echo "   not formatted: run clang-format-14 -i on the files above"
    failed=1
fi

echo "== sizes"
scripts/check-sizes.py Source || failed=1

echo "== the model file's keys, spelled only in Source/engine/file/"
# In code only (comments are prose); a juce::Identifier names a saved-state property, not a key.
/usr/bin/python3 - <<'PY' || failed=1
import pathlib, re, sys
keys = re.compile(r'"(__metadata__|embedding_output|frontend|taught|taught_examples|hit_embedding|labels)"')
comment = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)
found = 0
for path in sorted(pathlib.Path("Source").rglob("*")):
    if path.suffix not in (".h", ".cpp") or path.parts[1:3] == ("engine", "file"):
        continue
    code = comment.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text())
    for number, line in enumerate(code.splitlines(), 1):
        if keys.search(line) and "juce::Identifier" not in line:
            print(f"{path}:{number}: {line.strip()}")
            found += 1
if found:
    print("   use the key constants of engine/file/ instead")
sys.exit(1 if found else 0)
PY

echo "== JSON parsed by one reader (engine/file/Json)"
if git grep -nE '(nlohmann::)?(ordered_)?[jJ]son::parse|nlohmann::json::from_|\.get_to *\(' -- 'Source/*'; then
    echo "   parse with engine::parseJson (engine/file/Json.h)"
    failed=1
fi

[ $failed -eq 0 ] && echo "check-house: all checks pass"
exit $failed
