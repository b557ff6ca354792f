"""The UI's language: which one to show, its compiled translation, and fonts that draw it.

Source translations live in `resources/translations/throughline_<lang>.ts` (kept up to date
with `pyside6-lupdate desktop_app/gui -ts ...`). The compiled `.qm` is generated, never
committed: `packaging/setup-env.sh` compiles it beside the `.ts`; when that one is missing or
older than the `.ts` (e.g. after a plain pip install), `qm_file` compiles it into the user
cache folder with the `lrelease` that ships in the PySide6 wheel.

Strings are marked with `self.tr("...")` in QObject classes (context: the class name) and with
`translate("Context", "...")` elsewhere; lupdate finds both. Placeholders use `str.format`
names (`"Run {run}"`), never f-strings, so the text looked up is the text extracted.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import platformdirs
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QLibraryInfo,
    QLocale,
    QTranslator,
)
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

from desktop_app import paths

log = logging.getLogger(__name__)

# What the settings can hold: "system" follows the system locale.
LANGUAGE_CHOICES = ("system", "en", "zh_CN")
TRANSLATED = ("zh_CN",)  # languages with a .ts file; English is the source text
ENV_LANGUAGE = "THROUGHLINE_LANG"  # overrides the setting (e.g. for screenshots)
CJK_FONTS = ("Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
             "Microsoft YaHei", "PingFang SC", "SimHei")


def report_language() -> str:
    """The words layer's language matching the UI's ("zh" when the app runs in Chinese): what
    the core's codes are said in (report's catalogues) wherever the window shows them."""
    return "zh" if QLocale().language() == QLocale.Language.Chinese else "en"


def error_words(exc: BaseException) -> str:
    """An error as the window shows it: one the core raised with a code, said in the window's
    language (`report.errors.error_text`); any other, its own message."""
    from desktop_app.report.errors import error_text

    return error_text(exc, report_language())


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """`QCoreApplication.translate` (the name lupdate looks for) for code outside QObjects."""
    return QCoreApplication.translate(context, text, disambiguation, n)


# Words the store and the core use that the UI shows as they are: statuses and run kinds.
_WORDS = (QT_TRANSLATE_NOOP("RunStatus", "running"), QT_TRANSLATE_NOOP("RunStatus", "completed"),
          QT_TRANSLATE_NOOP("RunStatus", "cancelled"), QT_TRANSLATE_NOOP("RunStatus", "failed"),
          QT_TRANSLATE_NOOP("RunStatus", "interrupted"),
          QT_TRANSLATE_NOOP("RunStatus", "time_budget"),
          QT_TRANSLATE_NOOP("RunStatus", "incomplete"), QT_TRANSLATE_NOOP("RunStatus", "pending"),
          QT_TRANSLATE_NOOP("RunStatus", "throughput"), QT_TRANSLATE_NOOP("RunStatus", "sql"),
          QT_TRANSLATE_NOOP("RunStatus", "replay"))


def status_text(word: str) -> str:
    """A run's status or kind ("completed", "sql", ...) in the UI's language."""
    return QCoreApplication.translate("RunStatus", word)


def resolve_language(choice: str | None, system_locale: str | None = None) -> str:
    """The language to show for a settings `choice` ("system", "en", "zh_CN"): "system" (or
    anything unknown) picks zh_CN for a Chinese system locale, else English."""
    if choice in ("en", *TRANSLATED):
        return choice
    name = system_locale if system_locale is not None else QLocale.system().name()
    return "zh_CN" if name.startswith("zh") else "en"


def ts_file(language: str) -> Path:
    """The source translation of `language` (bundled)."""
    return paths.resources_dir() / "translations" / f"throughline_{language}.ts"


def _lrelease() -> str | None:
    import PySide6

    bundled = Path(PySide6.__file__).parent / ("lrelease.exe" if os.name == "nt" else "lrelease")
    if bundled.is_file():
        return str(bundled)
    return shutil.which("pyside6-lrelease") or shutil.which("lrelease")


def _fresh(qm: Path, ts: Path) -> bool:
    return qm.is_file() and qm.stat().st_mtime >= ts.stat().st_mtime


def qm_file(language: str, cache_dir: Path | None = None) -> Path | None:
    """The compiled translation of `language`: beside its .ts when up to date, else compiled
    (now, once) into `cache_dir` (default: the user cache folder). None when there is no .ts
    or it cannot be compiled (the UI then stays in English, and the log says why)."""
    ts = ts_file(language)
    beside = ts.with_suffix(".qm")
    if not ts.is_file():
        # A frozen build ships the compiled file alone (packaging/throughline.spec).
        return beside if beside.is_file() else None
    if _fresh(beside, ts):
        return beside
    cache_dir = cache_dir or platformdirs.user_cache_path(paths.APP_NAME) / "translations"
    cached = cache_dir / beside.name
    if _fresh(cached, ts):
        return cached
    tool = _lrelease()
    if tool is None:
        log.warning("cannot compile %s: no lrelease found (install PySide6)", ts)
        return None
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f"{cached.stem}.{os.getpid()}.part")  # two apps starting at once
    done = subprocess.run([tool, "-silent", str(ts), "-qm", str(partial)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not partial.is_file():
        log.warning("cannot compile %s: %s", ts, (done.stderr or done.stdout).strip())
        partial.unlink(missing_ok=True)
        return None
    os.replace(partial, cached)
    return cached


def install_translators(app: QCoreApplication, language: str) -> list[QTranslator]:
    """Load `language`'s translations into `app` (ours, and Qt's own for its standard
    buttons); returns the translators installed (keep them alive; `remove_translators` undoes
    it). English installs nothing."""
    installed: list[QTranslator] = []
    if language not in TRANSLATED:
        return installed
    ours = qm_file(language)
    if ours is None:
        return installed  # qm_file logged why; Qt's own buttons alone would be a mix
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    for directory, name in ((qt_dir, f"qtbase_{language}"), (str(ours.parent), ours.stem)):
        translator = QTranslator(app)
        if translator.load(name, directory) and app.installTranslator(translator):
            installed.append(translator)
        else:
            log.warning("cannot load the %s translation %s from %s", language, name, directory)
            translator.deleteLater()
    return installed


def remove_translators(app: QCoreApplication, translators: list[QTranslator]) -> None:
    for translator in translators:
        app.removeTranslator(translator)
        translator.deleteLater()


def cjk_family() -> str | None:
    """An installed font family with Simplified Chinese glyphs, or None."""
    families = set(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))
    return next((f for f in CJK_FONTS if f in families), next(iter(sorted(families)), None))


def use_cjk_fallback(app: QApplication) -> str | None:
    """Put a CJK font behind the app's default font, so Chinese text (in widgets and in
    pyqtgraph's titles, axes and legends, which take the app font) shows glyphs rather than
    boxes even where the platform's own fallback does not find one. Returns its family."""
    family = cjk_family()
    if family is None:
        log.warning("no font with Chinese glyphs is installed (e.g. fonts-wqy-microhei)")
        return None
    font = QFont(app.font())
    families = font.families() or [font.family()]
    if family not in families:
        font.setFamilies([*families, family])
        app.setFont(font)
    for base in families:
        if family not in QFont.substitutes(base):
            QFont.insertSubstitution(base, family)
    return family


def setup_language(app: QApplication, choice: str | None) -> tuple[str, list[QTranslator]]:
    """Pick the language for `choice` ("system", "en", "zh_CN"), install its translators and a
    CJK fallback font, and make QLocale() agree (reports follow it); returns the language shown
    and the translators."""
    language = resolve_language(choice)
    translators = install_translators(app, language)
    if language != "en" and not translators:
        print(f"throughline: no {language} translation could be loaded; showing English",
              file=sys.stderr)
        language = "en"
    use_cjk_fallback(app)  # names, questions or results can be Chinese in any language
    if language == "zh_CN":
        QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    elif QLocale().language() == QLocale.Language.Chinese:  # English chosen on a Chinese system
        QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    return language, translators
