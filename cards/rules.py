"""The Set table as a game kind: two rule sets ("declare" and "classic") behind one interface."""

from __future__ import annotations

from cards.engine.bot import set_table_actions
from cards.engine.classic import ClassicRules
from cards.engine.errors import SetError
from cards.engine.table import DeclareRules
from games.errors import RuleError
from games.rules import Result, as_result, register

RULE_SETS = {"declare": DeclareRules(), "classic": ClassicRules()}


# What the rules read of each action: the log keeps that, not whatever else was sent.
ACTION_FIELDS = {"pick": ("type", "row", "col"), "claim": ("type", "cards")}


class SetTable:
    kind = "set"
    page = "table"  # a game's own page (a URL name)
    min_seats = 1
    max_seats = None
    join_while_active = True

    def engine(self, state_or_options: dict):
        name = state_or_options.get("rules", "declare")
        if isinstance(name, str) and name in RULE_SETS:
            return RULE_SETS[name]
        shown = repr(name) if len(repr(name)) <= 40 else repr(name)[:37] + "..."
        raise RuleError(
            f"The rules option must be 'declare' or 'classic'; got {shown}.", "bad_option"
        )

    def options(self, options: dict) -> dict:
        """Return the table's options checked, bounded and in canonical form (what is stored).

        Every reader of a stored game (lists, pages, replays, the next move) trusts them, so
        anything else is refused here, once, with a message naming the option: unknown keys,
        wrong types, null, a deck that is not a list of distinct cards, and numbers out of range
        (``declare_ms`` and ``away_ms`` at most a day, ``MAX_CLOCK_MS``; ``board_size`` at most the
        whole deck).
        """
        if not isinstance(options, dict):
            raise RuleError(
                "Set table options are a JSON object: rules, attributes, deck, board_size, "
                "away_ms, declare_ms.",
                "bad_option",
            )
        rules = options.get("rules", "declare")
        engine = self.engine({"rules": rules})
        try:
            cleaned = engine.clean_options({k: v for k, v in options.items() if k != "rules"})
        except SetError as error:
            raise RuleError(str(error), getattr(error, "code", "bad_option")) from None
        return {"rules": rules, **cleaned}

    def new(self, *, options: dict, seed: int, now_ms: int) -> dict:
        engine_options = {k: v for k, v in options.items() if k != "rules"}
        state = self.engine(options).new_state(options=engine_options, seed=seed, now_ms=now_ms)
        return {**state, "rules": options["rules"]}

    def join(self, state: dict, name: str, now_ms: int) -> Result:
        return self.apply(state, name, {"type": "join"}, now_ms)

    def apply(self, state: dict, actor: str, action: dict, now_ms: int) -> Result:
        result = self._keep_rules(state, self.engine(state).apply(state, actor, action, now_ms))
        fields = ACTION_FIELDS.get(action.get("type"), ("type",))
        read = {key: action[key] for key in fields if key in action}
        return Result(result.state, result.outcome, result.event, read)

    def tick(self, state: dict, now_ms: int) -> Result:
        return self._keep_rules(state, self.engine(state).tick(state, now_ms))

    @staticmethod
    def _keep_rules(before: dict, engine_result) -> Result:
        result = as_result(engine_result)
        if result.state.get("rules") == before.get("rules"):
            return result
        return Result({**result.state, "rules": before["rules"]}, result.outcome, result.event)

    def next_deadline(self, state: dict) -> int | None:
        return self.engine(state).next_deadline(state)

    def view(self, state: dict, actor: str | None, now_ms: int) -> dict:
        return self.engine(state).view(state, actor, now_ms)

    def status(self, state: dict) -> str:
        if self.engine(state).is_over(state):
            return "over"
        return "active" if self.engine(state).players(state) else "waiting"

    def scores(self, state: dict) -> dict[str, int]:
        return self.engine(state).scores(state)

    def describe(self, options: dict) -> str:
        """A short description for lists: rule set, attributes, deck.

        Options are checked when a game is created (`options`); a row stored before that check
        still gets a description, not an error, since the lobby lists every game.
        """
        parts = [str(options.get("rules", "declare")).capitalize()]
        if options.get("attributes") in (3, 4, 5):
            parts.append(f"{options['attributes']} attributes")
        if isinstance(options.get("deck"), list) and options["deck"]:
            parts.append(f"{len(options['deck'])} cards")
        return ", ".join(parts)

    def bot_actions(self, state: dict, name: str) -> list[dict] | None:
        return set_table_actions(state, name)


register(SetTable())
