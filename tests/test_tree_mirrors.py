"""tests/ mirrors the source tree (#27): a test of desktop_app/core/sqleval/judge.py lives in
tests/core/sqleval/, so the tests of a module are found where the module is. Folders that are
not a package's tests (data the tests read, the hostile servers that cut across packages, the
real-engine suite, the oracles of other tools) are named here."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_A_PACKAGE = {"data", "hostile", "real", "oracles", "__pycache__"}


def _folders(path: Path) -> list[Path]:
    return [d for d in sorted(path.iterdir()) if d.is_dir() and d.name not in NOT_A_PACKAGE]


def test_each_test_folder_is_named_for_a_source_package():
    tests, source = ROOT / "tests", ROOT / "desktop_app"
    strays = [d.relative_to(ROOT).as_posix() for top in _folders(tests)
              for d in [top, *_folders(top)]
              if not (source / d.relative_to(tests) / "__init__.py").exists()]
    assert strays == [], f"test folders with no package of that name in desktop_app: {strays}"


def test_no_test_file_at_the_top_of_a_folder_whose_package_has_subpackages_of_its_name():
    # A test named for a subpackage (tests/core/test_sqleval_runner.py) belongs in its folder.
    tests = ROOT / "tests"
    misplaced = []
    for top in _folders(tests):
        subs = {d.name for d in _folders(top)}
        misplaced += [f.relative_to(ROOT).as_posix() for f in sorted(top.glob("test_*.py"))
                      if f.stem.removeprefix("test_").split("_")[0] in subs]
    assert misplaced == [], f"move these into their package's folder: {misplaced}"
