"""Carry the parametrized vectors of pypa/packaging's test suite over as JSON.

Run from a checkout of pypa/packaging (its src/ on PYTHONPATH), e.g.
    PYTHONPATH=src python3 -m pytest --collect-only -q -p extract tests/test_version.py ...
with this file's folder on PYTHONPATH too. It writes one JSON file per test module into
$VECTORS_OUT: {test name: [params, ...]} for the tests listed in WANTED, with versions, specifiers
and tuples turned into strings and lists. Only data is carried over; the tests are our own.
"""
import json
import os
import subprocess

WANTED = {
    "test_version": [
        "test_valid_versions", "test_invalid_versions", "test_normalized_versions", "test_version_str_repr",
        "test_version_public", "test_version_base_version", "test_version_epoch", "test_version_release",
        "test_version_local", "test_version_pre", "test_version_is_prerelease", "test_version_dev",
        "test_version_is_devrelease", "test_version_post", "test_version_is_postrelease",
    ],
    "test_specifiers": [
        "test_specifiers_valid", "test_specifiers_invalid", "test_specifiers_normalized", "test_specifiers_str_and_repr",
        "test_specifiers", "test_specifiers_prereleases", "test_specifier_filter", "test_specifier_prereleases_detection",
        "test_arbitrary_equality", "test_invalid_version", "test_specifier_filter", "test_empty_specifier",
        "test_specifier_contains_installed_prereleases", "test_specifier_prereleases_explicit",
        "test_contains_exclusionary_bridges", "test_filter_exclusionary_bridges", "test_contains_arbitrary_equality_contains",
        "test_contains_post_release_boundary_intersection", "test_comparison_ignores_local",
        "test_arbitrary_equality_normalization", "test_contains_arbitrary_equality_normalization",
        "test_specifier_filter_arbitrary_equality_normalization", "test_empty_specifier_arbitrary_string",
    ],
    "test_requirements": [
        "test_basic_valid_requirement_parsing", "test_valid_marker", "test_str_and_repr",
        "test_error_when_suffixed_with_line_break",
    ],
    "test_markers": [
        "test_parses_valid", "test_parses_invalid", "test_evaluates", "test_extras_and_dependency_groups",
        "test_version_like_equality", "test_evaluate_pep345_markers", "test_parses_pep345_valid",
        "test_str_repr_eq_hash",
    ],
    "test_utils": ["test_canonicalize_name", "test_canonicalize_name_invalid", "test_is_normalized_name"],
}

collected = {}


def _plain(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return str(value)


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        name = item.originalname
        if name not in WANTED.get(module, []) or not hasattr(item, "callspec"):
            continue
        key = f"{item.cls.__name__}.{name}" if item.cls else name
        collected.setdefault(module, {}).setdefault(key, []).append(_plain(item.callspec.params))
        if module == "test_version" and "VERSIONS" not in collected[module]:
            # The ordered list every comparison test of test_version.py walks pairwise.
            collected[module]["VERSIONS"] = [[v] for v in item.module.VERSIONS]


def pytest_collection_finish(session):
    out = os.environ["VECTORS_OUT"]
    commit = os.environ.get("PACKAGING_COMMIT", "unknown")
    for module, tests in collected.items():
        # The requirement test is a product of 5,184 cases: every 8th keeps each part's values.
        basic = tests.get("test_basic_valid_requirement_parsing")
        if basic:
            tests["test_basic_valid_requirement_parsing"] = basic[::8]
        with open(os.path.join(out, f"{module}.json"), "w") as f:
            json.dump({"source": f"https://github.com/pypa/packaging/blob/{commit}/tests/{module}.py",
                       "commit": commit, "tests": tests}, f, indent=1, sort_keys=True)
            f.write("\n")
