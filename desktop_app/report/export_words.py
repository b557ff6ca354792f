"""The words an export carries beside its codes and values (`core/exchange.export_run`'s
`words`): diagnosis findings and the line across judges, in English or Chinese."""

from __future__ import annotations

from desktop_app.report import diagnosis_words, judge_words


class ExportWords:
    """Findings and verdict lines in `lang` ("en" or "zh")."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang

    def diagnosis(self, finding) -> tuple[str, str | None]:
        return (diagnosis_words.finding_text(finding, self.lang),
                diagnosis_words.suggestion_text(finding, self.lang))

    def headline(self, headline) -> str:
        return judge_words.headline_text(headline, self.lang)
