"""Plain-language questions about runs, translated by rules into run queries (``ridgeline.search.query``).

``runs with lr 0.001 and val loss below 0.3`` -> ``hparams.lr == 0.001 and metric("val/loss").min < 0.3``.
Offline and deterministic: regular expressions over the lower-cased question, and names resolved against the
hyperparameters and scalar tags the log directory has ("val loss" -> ``val/loss``, or ``loss/val``, or both as
``metric("val/loss", "loss/val")`` when runs differ). The translation is shown to the user, who can edit it;
a question no rule covers gives None, and :func:`suggestion` words the error. See docs/search.md ("Questions").
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from dataclasses import dataclass, field

from ridgeline.search.errors import SearchError
from ridgeline.search.query import parse
from ridgeline.search.runfacts import facts_for
from ridgeline.store.logdir import LogDir

_QUESTION_START = re.compile(
    r"^(which|what|who|where|when|how|show|list|find|give|get|best|top|worst|bottom|lowest|highest|smallest|"
    r"largest|biggest|runs|experiments|trials|any|are|is|did|do|does|failed|successful|diverged|latest|newest|"
    r"oldest|earliest|longest|shortest|most\s+recent)\s+\S|^(?:last|first)\s+\d+\s+runs?\b"
)
_CMP_WORDS = (
    r"(?:is\s+)?(?:below|under|above|over|less\s+than|lower\s+than|smaller\s+than|greater\s+than|more\s+than|"
    r"higher\s+than|bigger\s+than|larger\s+than|at\s+least|at\s+most|not\s+equal\s+to|equal\s+to|equals|is\s+not|is)"
)
_COMPARISON_PHRASE = re.compile(rf"\b{_CMP_WORDS}\s+-?\.?\d")
_SYMBOL_COMPARISON = re.compile(r"^[a-z_][\w/ .-]*?\s*(?:<=|>=|<|>)\s*-?\.?\d[\d.e+-]*$")
_REGEX_CHARS = re.compile(r"[\\^$|*+?{}()\[\]]")
_WORD_OPS = [
    (r"is\s+not|isn't|not\s+equal\s+to", "!="),
    (r"(?:is\s+)?(?:at\s+most|no\s+more\s+than)", "<="),
    (r"(?:is\s+)?(?:at\s+least|no\s+less\s+than)", ">="),
    (r"(?:is\s+)?(?:below|under|less\s+than|lower\s+than|smaller\s+than)", "<"),
    (r"(?:is\s+)?(?:above|over|greater\s+than|more\s+than|higher\s+than|bigger\s+than|larger\s+than)", ">"),
    (r"is\s+equal\s+to|equal\s+to|equals|is|of|=", "=="),
]
_VALUE = r"(?P<value>-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|true|false|yes|no|\"[^\"]*\"|'[^']*'|[\w./-]+)"
_CLAUSE = re.compile(
    r"^(?P<name>.+?)(?:\s*(?P<symbol><=|>=|==|!=|<|>|=)\s*|\s+(?:(?P<words>"
    + "|".join(f"(?:{words})" for words, _ in _WORD_OPS)
    + r")\s+)?)"
    + _VALUE
    + r"$"
)
_STATS = {"final": "last", "last": "last", "latest": "last", "first": "first", "initial": "first", "min": "min",
          "minimum": "min", "lowest": "min", "max": "max", "maximum": "max", "highest": "max", "peak": "max",
          "mean": "mean", "average": "mean", "avg": "mean", "best": "best"}  # fmt: skip
_SYNONYMS = {"validation": "val", "valid": "val", "accuracy": "acc", "training": "train", "learning_rate": "lr",
             "bs": "batch_size", "error": "err", "wd": "weight_decay", "eval": "val"}  # fmt: skip
_METRIC_WORDS = re.compile(
    r"loss|acc|err|f1|auc|score|perplexity|ppl|reward|return|bleu|rouge|mse|mae|rmse|iou|map|precision|recall|nll"
)
# Best is smallest for a metric whose tag says it is a loss or an error, largest otherwise (as the hparams view).
_LOWER_IS_BETTER = re.compile(r"loss|err|mse|mae|rmse|nll|perplexity|ppl|wer|cer|distance|latency|time|regret|cost")
_SUPERLATIVES = {"best": "best", "top": "best", "worst": "worst", "bottom": "worst", "lowest": "min", "smallest": "min",
                 "least": "min", "minimum": "min", "highest": "max", "largest": "max", "biggest": "max", "most": "max",
                 "maximum": "max", "greatest": "max"}  # fmt: skip
_SUP = "|".join(_SUPERLATIVES)
_NOUN = r"(?:runs?|experiments?|trials?|models?)"
_RECENT = re.compile(
    rf"^(?P<n0>\d+\s+)?(?P<which>most\s+recent|latest|newest|last|oldest|earliest|first|longest|shortest)\s*(?P<n>\d+)?\s*"
    rf"(?P<noun>{_NOUN})(?:\s+(?:with|where|whose|that)\s+(?P<rest>.+))?$"
)
_RECENT_ORDER = {"most recent": "started desc", "latest": "started desc", "newest": "started desc",
                 "last": "started desc", "oldest": "started", "earliest": "started", "first": "started",
                 "longest": "duration desc", "shortest": "duration"}  # fmt: skip
_RANK_LEADING = re.compile(
    rf"^(?P<sup>{_SUP})\s*(?P<n>\d+)?\s*(?P<noun>{_NOUN})?\s*(?:by|on|for|in|of)?\s*(?P<rest>.*)$"
)
_RANK_TRAILING = re.compile(
    rf"^(?P<n>\d+\s+)?(?P<noun>{_NOUN})\s+(?P<filters>.*?)\s*(?:with|that\s+have|having|has|have|had)\s+(?:the\s+)?"
    rf"(?P<sup>{_SUP})\s+(?P<rest>.+)$"
)
_LEADING_FILLER = re.compile(
    r"^(?:please|show|list|find|give|get|me|which|what|who|are|were|is|was|there|any|all|the|of|do|did|does)\s+"
)
_SUBJECT = re.compile(rf"^{_NOUN}\s*(?:(?:with|where|whose|that|which|having|in\s+which|have|has|had)\s+)*")
_NONFINITE = re.compile(
    r"^(no\s+|without\s+|not\s+)?(?:any\s+)?(nans?|infs?|infinity|infinite values|non-?finite(?: values)?|"
    r"nan or inf|inf or nan|nan/inf|diverged)(?:\s+(?:in|on)\s+(.+))?$"
)
_STATUSES = {"failed": "failure", "crashed": "failure", "successful": "success", "succeeded": "success",
             "completed": "success", "finished": "success", "running": "running"}  # fmt: skip
_NOT_NAMES = {"how", "what", "why", "who", "where", "when", "which", "you", "i", "me", "my", "we", "it", "are", "is",
              "was", "were", "do", "does", "did", "can", "the", "a", "an", "this", "that"}  # fmt: skip
_STRING_HPARAMS = {"optimizer", "optim", "model", "arch", "architecture", "activation", "scheduler", "dataset",
                   "init", "norm", "precision", "device", "backbone", "loss_fn", "criterion"}  # fmt: skip
_UNITS = {"minute": "m", "hour": "h", "day": "d", "week": "w"}


@dataclass
class Vocabulary:
    """The names a question can refer to: hyperparameter names and scalar tags (with how many runs have each)."""

    hparams: Counter[str] = field(default_factory=Counter)
    tags: Counter[str] = field(default_factory=Counter)


_VOCABULARIES: weakref.WeakKeyDictionary[LogDir, tuple[int, Vocabulary]] = weakref.WeakKeyDictionary()


def vocabulary(logdir: LogDir) -> Vocabulary:
    """The hyperparameter names and scalar tags of ``logdir``, recomputed when ingest's generation moves."""
    generation = logdir.generation
    cached = _VOCABULARIES.get(logdir)
    if cached is not None and cached[0] == generation:
        return cached[1]
    facts = facts_for(logdir)
    facts.refresh()
    words = Vocabulary()
    for run in logdir.runs():
        words.hparams.update(list(facts.hparams(run)))
        words.tags.update(facts.scalar_tags(run))
    _VOCABULARIES[logdir] = (generation, words)
    return words


def looks_like_question(text: str) -> bool:
    """Whether ``text`` reads as a question rather than a pattern or a query: it ends with "?", starts with a
    question word or "runs"/"best"/"lowest"..., says "<name> below/above/is <number>" in plain words, or is
    "<name> < <number>" with a bare name (``lr < 0.01``: a query without its field syntax)."""
    stripped = text.strip().lower()
    if not stripped or _parses(stripped):
        return False
    if stripped.endswith("?"):
        return True
    if _QUESTION_START.match(stripped) or _SYMBOL_COMPARISON.match(stripped):
        return True
    return (
        len(stripped.split()) >= 3 and not _REGEX_CHARS.search(stripped) and bool(_COMPARISON_PHRASE.search(stripped))
    )


def _parses(text: str) -> bool:
    try:
        parse(text)
    except SearchError:
        return False
    return True


def translate(question: str, logdir: LogDir | None = None) -> str | None:
    """The run query a question means, as text (canonical form), or None when no rule covers it. With
    ``logdir``, names are resolved against its hyperparameters and tags; without, they are guessed."""
    words = vocabulary(logdir) if logdir is not None else None
    text = _normalise(question)
    try:
        translated = _Translator(words).question(text)
    except _Untranslatable:
        return None
    if translated is None:
        return None
    try:
        return str(parse(translated))
    except SearchError:
        return None


def suggestion(question: str) -> str:
    """The error message for a question :func:`translate` could not read: what to write instead."""
    return (
        f"could not translate {question.strip()!r} into a run query; ask like 'runs with lr 0.001 and val loss "
        "below 0.3', 'best 5 runs by val/acc', 'runs started last week', 'which runs have nan', or write the "
        'query itself, e.g. hparams.lr < 0.01 and metric("val/loss").min < 0.3 and run =~ "resnet" '
        "(see docs/search.md)"
    )


class _Untranslatable(Exception):
    pass


def _normalise(question: str) -> str:
    text = question.strip().lower().rstrip("?!. ").replace("’", "'")
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s*,\s*(?:and\s+)?", " and ", text)
    return text


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Translator:
    def __init__(self, words: Vocabulary | None) -> None:
        self.words = words

    def question(self, text: str) -> str | None:
        while (stripped := _LEADING_FILLER.sub("", text)) != text:
            text = stripped
        ranking = self.ranking(text)
        if ranking is not None:
            return ranking
        return self.filters(text)

    # --- rankings: "best 5 runs by val/acc", "lowest val loss", "runs with the highest val acc" ----------------
    def ranking(self, text: str) -> str | None:
        recent = _RECENT.match(text)
        if recent is not None:  # "last 5 runs", "most recent run with lr 0.001", "longest runs"
            order = _RECENT_ORDER[re.sub(r"\s+", " ", recent.group("which"))]
            count, noun = recent.group("n") or recent.group("n0"), recent.group("noun")
            limit = int(count) if count else (None if noun.endswith("s") else 1)
            condition = self.filters(recent.group("rest") or "")
            query = f"{condition + ' ' if condition else ''}order by {order}"
            return query + (f" limit {limit}" if limit is not None else "")
        match = _RANK_LEADING.match(text)
        filters = ""
        if match is None or not match.group("rest"):
            match = _RANK_TRAILING.match(text)
            if match is None:
                return None
            filters = match.group("filters")
        rest = match.group("rest")
        # "best 5 runs by val/acc with lr 0.001": the metric, then filters
        parts = re.split(r"\s+(?:with|where|whose|that|and)\s+", rest, maxsplit=1)
        stat_word, name = self.split_stat(parts[0])
        more = parts[1] if len(parts) > 1 else ""
        tags = self.tags(name)
        sup = _SUPERLATIVES[match.group("sup")]
        lower_better = bool(_LOWER_IS_BETTER.search(" ".join(tags)))
        if sup in ("best", "worst"):  # worst: the runs whose best value is furthest behind
            stat = stat_word if stat_word not in (None, "best") else ("min" if lower_better else "max")
            desc = (not lower_better) != (sup == "worst")
        else:
            stat = stat_word if stat_word not in (None, "best") else sup
            desc = sup == "max"
        count = match.group("n")
        noun = match.group("noun") or ""
        limit = int(count) if count else (None if noun.endswith("s") else 1)
        conditions = [part for part in (self.filters(filters), self.filters(more)) if part]
        metric = f"metric({', '.join(_quote(tag) for tag in tags)}).{stat}"
        query = " and ".join(f"({part})" if " or " in part else part for part in conditions)  # filters' own or
        query += f" order by {metric}{' desc' if desc else ''}"
        return query + (f" limit {limit}" if limit is not None else "")

    # --- conditions: "runs with lr 0.001 and val loss below 0.3" ---------------------------------------------
    def filters(self, text: str) -> str | None:
        text = re.sub(r"^(failed|crashed|successful|succeeded|completed|running)\s+(" + _NOUN + r")\b", r"\2 \1", text)
        text = _SUBJECT.sub("", text.strip())
        if not text:
            return None
        parts = re.split(r"\s+(and|or)\s+", text)
        out = [self.clause(parts[0])]
        for connector, clause in zip(parts[1::2], parts[2::2], strict=True):
            out += [connector, self.clause(_SUBJECT.sub("", clause))]
        return " ".join(out)

    def clause(self, text: str) -> str:
        text = re.sub(r"^(?:with|where|whose|that|which|having|have|has|had|the|a|an|any)\s+", "", text.strip())
        for rule in (self.time, self.nonfinite, self.named, self.status, self.comparison, self.has_tag):
            result = rule(text)
            if result is not None:  # a clause of several parts stays one operand of the question's and/or
                return f"({result})" if " and " in result or " or " in result else result
        raise _Untranslatable(text)

    def time(self, text: str) -> str | None:
        match = re.match(r"^(?:was\s+|were\s+)?(started|created|began|launched|ended|finished|stopped)\s+(.+)$", text)
        if match is None:
            return None
        which = "started" if match.group(1) in ("started", "created", "began", "launched") else "ended"
        when = re.sub(r"^(?:in|within|during|over)\s+(?:the\s+)?", "", match.group(2))
        if when in ("last week", "past week", "this week"):
            return f"{which} >= now - 7d"
        if when in ("last month", "past month", "this month"):
            return f"{which} >= now - 30d"
        if when in ("today", "last day", "past day"):
            return f"{which} >= today" if when == "today" else f"{which} >= now - 1d"
        if when == "yesterday":
            return f"{which} >= today - 1d and {which} < today"
        span = re.match(r"^(?:last|past)\s+(\d+)\s+(minute|hour|day|week)s?$", when)
        if span:
            return f"{which} >= now - {span.group(1)}{_UNITS[span.group(2)]}"
        date = re.match(r"^(since|after|from|before|until)\s+(\d{4}-\d{2}-\d{2}(?:[ t]\d{2}:\d{2})?)$", when)
        if date:
            op = "<" if date.group(1) in ("before", "until") else ">="
            return f"{which} {op} {_quote(date.group(2))}"
        raise _Untranslatable(text)

    def nonfinite(self, text: str) -> str | None:
        match = _NONFINITE.match(text)
        if match is None:
            return None
        kind = match.group(2)
        if match.group(3):
            tags = self.tags(match.group(3))
            stats = (
                ["nan"]
                if kind.startswith("nan") and "inf" not in kind
                else ["inf"]
                if "nan" not in kind
                else ["nan", "inf"]
            )
            metric = f"metric({', '.join(_quote(tag) for tag in tags)})"
            condition = " or ".join(f"{metric}.{stat}" for stat in stats)
        elif kind.startswith("nan") and "inf" not in kind:
            condition = "has_nan"
        elif kind.startswith("inf"):
            condition = "has_inf"
        else:
            condition = "has_nan or has_inf"
        if match.group(1):
            return f"not ({condition})" if " or " in condition else f"not {condition}"
        return condition

    def named(self, text: str) -> str | None:
        match = re.match(
            r"^(?:named|called|whose name (?:contains|matches|is)|name(?:d)? (?:contains|containing|matching|like)|"
            r"matching|containing|like)\s+['\"]?(.+?)['\"]?$",
            text,
        )
        if match is None:
            return None
        return f"run =~ {_quote(re.escape(match.group(1)))}"

    def status(self, text: str) -> str | None:
        status = _STATUSES.get(text)
        return f'status == "{status}"' if status else None

    def comparison(self, text: str) -> str | None:
        match = _CLAUSE.match(text)
        if match is None:
            return None
        words = match.group("words")
        symbol = match.group("symbol")
        if symbol:
            op = "==" if symbol == "=" else symbol
        else:
            op = next((sym for w, sym in _WORD_OPS if words and re.fullmatch(w, words)), "==")
        value = match.group("value")
        number = re.fullmatch(r"-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?", value) is not None
        if value in ("yes", "no", "true", "false"):
            value = "true" if value in ("yes", "true") else "false"
        elif not number:
            value = _quote(value.strip("'\""))
        stat_word, name = self.split_stat(match.group("name"))
        if not name:
            return None
        hparam = self.find_hparam(name) if stat_word is None else None
        if hparam is None and stat_word is None and not self.is_metric(name) and self.guessable(name, number):
            hparam = _hparam_ref("_".join(name.split()))  # not in the log directory (or none given): a guess
        if hparam is not None:
            return f"{hparam} {op} {value}"
        if not number:
            return None
        tags = self.tags(name)
        if stat_word is None:
            stat = {"<": "min", "<=": "min", ">": "max", ">=": "max"}.get(op, "last")
        elif stat_word == "best":
            stat = "min" if _LOWER_IS_BETTER.search(" ".join(tags)) else "max"
        else:
            stat = stat_word
        return f"metric({', '.join(_quote(tag) for tag in tags)}).{stat} {op} {value}"

    def has_tag(self, text: str) -> str | None:
        text = re.sub(r"^(?:logged|logging|log|tag|metric)\s+", "", text)
        if not (self.find_tags(text) or "/" in text or _METRIC_WORDS.search(text)):
            return None
        return f"metric({', '.join(_quote(tag) for tag in self.tags(text))}).count > 0"

    # --- names ------------------------------------------------------------------------------------------------
    def split_stat(self, words: str) -> tuple[str | None, str]:
        parts = words.strip().split()
        stats = [_STATS[part] for part in parts if part in _STATS]
        rest = " ".join(part for part in parts if part not in _STATS and part not in ("the", "a", "its", "value"))
        return (stats[0] if stats else None), rest

    def find_hparam(self, name: str) -> str | None:
        """``hparams.NAME`` for words naming a hyperparameter of the log directory (None without one)."""
        if self.words is None:
            return None
        wanted = _tokens(name)
        for known, _ in self.words.hparams.most_common():
            if known == name or _tokens(known) == wanted:
                return _hparam_ref(known)
        return None

    def guessable(self, name: str, number: bool) -> bool:
        """Whether words the log directory does not know may still name a hyperparameter: a name of one to three
        plain words, compared with a number or bool (or with a word, for the usual string hyperparameters)."""
        words = name.split()
        if len(words) > 3 or any(word in _NOT_NAMES or not re.fullmatch(r"[a-z_][\w.-]*", word) for word in words):
            return False
        return number or (self.words is None and name in _STRING_HPARAMS)

    def is_metric(self, name: str) -> bool:
        if self.words is not None and self.find_tags(name):
            return True
        return bool(_METRIC_WORDS.search(name))

    def find_tags(self, name: str) -> list[str]:
        """The log directory's tags the words name: the tag itself, or the tags made of the same words in any
        order ("val loss": val/loss and loss/val), or else those with one word more, the fewest-word and most
        common group first ("loss": train/loss, when no tag is just "loss")."""
        if self.words is None:
            return []
        if name in self.words.tags:
            return [name]
        wanted = _tokens(name)
        groups: dict[tuple[str, ...], list[str]] = {}
        for tag in self.words.tags:
            tokens = _tokens(tag)
            if wanted and set(wanted) <= set(tokens) and len(tokens) <= len(wanted) + 1:
                groups.setdefault(tuple(tokens), []).append(tag)
        if not groups:
            return []
        counts = self.words.tags
        best = min(groups, key=lambda key: (len(key), -sum(counts[tag] for tag in groups[key]), key))
        return groups[best]

    def tags(self, name: str) -> list[str]:
        """The tags words name: every matching tag of the log directory, most common first (a run answers with
        the first it has), or the words joined with "/" when nothing matches (or there is no log directory)."""
        name = name.strip()
        if not name:
            raise _Untranslatable(name)
        found = self.find_tags(name)
        if found and self.words is not None:
            counts = self.words.tags
            return sorted(found, key=lambda tag: (-counts[tag], tag))[:4]
        return [name if "/" in name else "/".join(name.split())]


def _tokens(name: str) -> list[str]:
    """Comparable words of a name: split on separators, synonyms folded ("validation accuracy" == "val/acc")."""
    joined = re.sub(r"learning[\s_-]rate", "learning_rate", re.sub(r"batch[\s_-]size", "batch_size", name.lower()))
    words = [
        w for w in re.split(r"[\s/_.\-:]+", joined.replace("learning_rate", "lr").replace("batch_size", "bs")) if w
    ]
    return sorted(_SYNONYMS.get(word, word) for word in words)


def _hparam_ref(name: str) -> str:
    plain = re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", name) is not None
    return f"hparams.{name}" if plain else f"hparams[{_quote(name)}]"
