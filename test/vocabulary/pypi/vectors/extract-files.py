"""Carry pypa/packaging's vectors for file names, tags and core metadata over as JSON data.

Run from anywhere with the path of a pypa/packaging checkout (its tests/ folder is read as text,
never imported or run):
    python3 extract-files.py /path/to/packaging COMMIT > packaging-files.json
It reads the literal parameters of the parametrized tests named in PARAMETRIZED, and the literal
`assert <name> == [...]` results of the tests named in ASSERTED (each with the call that produced
it), evaluating them with `Tag(...)` as "interpreter-abi-platform", `Version(...)` as its text and
sets as sorted lists. Only data is carried over; the tests that use it are our own.
"""
import ast
import json
import sys

ROOT, COMMIT = sys.argv[1], sys.argv[2]

PARAMETRIZED = {
    "tests/test_utils.py": [
        "test_parse_wheel_filename",
        "test_parse_wheel_invalid_filename",
        "test_parse_sdist_filename",
        "test_parse_sdist_invalid_filename",
    ],
    "tests/test_tags.py": [
        "test_binary_formats",
        "test_empty_component_raises",
        "test_invalid_interpreter_raises",
        "test_identifier_interpreter_is_valid",
        "test_invalid_component_count_raises",
        "test_skip_redundant_abis",
    ],
}
# Tests whose statements are `x = <call>` then `assert x == <literal>`.
ASSERTED = {
    "tests/test_tags.py": [
        "TestCPythonTags.test_all_args",
        "TestCPythonTags.test_major_only_python_version",
        "TestCPythonTags.test_abi3_python33",
        "TestCPythonTags.test_no_excess_abi3_python32",
        "TestCPythonTags.test_no_abi3_python31",
        "TestCPythonTags.test_no_abi3_python27",
        "TestCompatibleTags.test_all_args",
        "TestCompatibleTags.test_all_args_needs_underscore",
        "TestCompatibleTags.test_major_only_python_version",
        "TestMacOSPlatforms.test_mac_platforms",
        "TestManylinuxPlatform.test_linux_platforms_manylinux2010",
        "TestManylinuxPlatform.test_linux_platforms_manylinux2014",
        "TestManylinuxPlatform.test_linux_platforms_manylinux_glibc3",
    ],
}
# What the monkeypatched manylinux tests stand for (glibc and architecture), read off their source.
MANYLINUX_INPUTS = {
    "TestManylinuxPlatform.test_linux_platforms_manylinux2010": {"glibc": "2.12", "arch": "x86_64"},
    "TestManylinuxPlatform.test_linux_platforms_manylinux2014": {"glibc": "2.17", "arch": "x86_64"},
    "TestManylinuxPlatform.test_linux_platforms_manylinux_glibc3": {"glibc": "3.2", "arch": "aarch64"},
}


class _Tags:
    @staticmethod
    def Tag(interpreter, abi, platform):  # noqa: N802
        return f"{interpreter}-{abi}-{platform}".lower()


NAMESPACE = {
    "tags": _Tags,
    "Tag": _Tags.Tag,
    "Version": lambda text: text,
    "range": range,
    "arch": "x86_64",
    "_GLibCVersion": lambda *parts: ".".join(map(str, parts)),
}


def plain(value):
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def evaluate(node, extra=None):
    return plain(eval(compile(ast.Expression(node), "<vector>", "eval"), {**NAMESPACE, **(extra or {})}))


def functions(tree):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield f"{node.name}.{item.name}", item
                    yield item.name, item


def parametrized(fn):
    for decorator in fn.decorator_list:
        if isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "parametrize":
            names = evaluate(decorator.args[0])
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else names
            rows = []
            for row in evaluate(decorator.args[1]):
                rows.append(dict(zip(names, row if len(names) > 1 else [row])))
            return rows
    return []


def asserted(fn, extra):
    calls = {}
    results = []
    for stmt in ast.walk(fn):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            call = next((n for n in ast.walk(stmt.value) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and getattr(n.func.value, "id", "") == "tags"), None)
            if call is not None:
                calls[target] = {
                    "function": call.func.attr,
                    "args": [evaluate(a) for a in call.args],
                    "kwargs": {k.arg: evaluate(k.value) for k in call.keywords},
                }
            elif target == "expected":
                calls["expected"] = evaluate(stmt.value, extra)
        elif isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare) and isinstance(stmt.test.ops[0], ast.Eq):
            left, right = stmt.test.left, stmt.test.comparators[0]
            if not isinstance(left, ast.Name):
                continue
            expected = calls["expected"] if isinstance(right, ast.Name) and right.id == "expected" else evaluate(right, extra)
            source = calls.get(left.id) or calls.get("result_iterator") or {}
            results.append({**source, "expected": expected, "line": stmt.lineno})
    return results


out = {"source": "https://github.com/pypa/packaging", "commit": COMMIT, "tests": {}}
for path in sorted(set(PARAMETRIZED) | set(ASSERTED)):
    with open(f"{ROOT}/{path}", encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    found = dict(functions(tree))
    for name in PARAMETRIZED.get(path, []):
        out["tests"][f"{path}::{name}"] = parametrized(found[name])
    for name in ASSERTED.get(path, []):
        inputs = MANYLINUX_INPUTS.get(name)
        extra = {"arch": inputs["arch"]} if inputs else None
        vectors = asserted(found[name], extra)
        if inputs:
            vectors = [{**inputs, "expected": v["expected"], "line": v["line"]} for v in vectors]
        out["tests"][f"{path}::{name}"] = vectors

json.dump(out, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
print()
