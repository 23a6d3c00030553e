"""The Set toolkit over JSON: check three cards, find sets on a board, play a solitaire game."""

from __future__ import annotations

import random

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from cards import races
from cards import serializers as s
from cards.engine import SetError, all_sets, attribute_report, count_sets, find_set, is_set
from cards.solitaire import SetGame
from games.errors import RuleError
from games.schema import JSON_BODY, JSON_BODY_RESPONSES, error_response

EXAMPLE_SET = ["ONE/GREEN/OPEN/DIAMOND", "TWO/RED/OPEN/DIAMOND", "THREE/PURPLE/OPEN/DIAMOND"]


def cards_json(cards) -> list[dict]:
    return [s.card_json(card) for card in cards]


class SetView(APIView):
    """A view of the Set games: the engine's refusals are the platform's rule errors (400)."""

    def handle_exception(self, exc):
        if isinstance(exc, SetError):
            exc = RuleError(str(exc))
        return super().handle_exception(exc)


class CheckView(SetView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Set toolkit"],
        summary="Check whether three cards are a set",
        description=(
            "Per attribute, says whether the cards are all the same, all different or neither."
        ),
        request=s.CheckRequest,
        responses={200: s.CheckResponse, **JSON_BODY_RESPONSES},
        examples=[OpenApiExample("A set", value={"cards": EXAMPLE_SET}, request_only=True)],
    )
    def post(self, request):
        data = s.CheckRequest(data=request.data)
        data.is_valid(raise_exception=True)
        cards = data.validated_data["cards"]
        return Response(
            {
                "is_set": is_set(*cards),
                "cards": cards_json(cards),
                "attributes": attribute_report(*cards),
            }
        )


class FindView(SetView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Set toolkit"],
        summary="Find one set, or every set, on a board",
        request=s.FindRequest,
        responses={200: s.FindResponse, **JSON_BODY_RESPONSES},
    )
    def post(self, request):
        data = s.FindRequest(data=request.data)
        data.is_valid(raise_exception=True)
        cards = data.validated_data["cards"]
        one = find_set(cards)
        body = {
            "found": one is not None,
            "count": count_sets(cards),
            "set": cards_json(one) if one else None,
        }
        if data.validated_data["all"]:
            body["sets"] = [cards_json(found) for found in all_sets(cards)]
        return Response(body)


class SolitaireView(SetView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Set toolkit"],
        summary="Play one whole solitaire game",
        description=(
            "Deal 12; take a set while one shows and refill to 12; deal 3 more while none shows; "
            "stop when the deck is empty and no set remains. Returns the sets in the order taken."
        ),
        request=s.SolitaireRequest,
        responses={200: s.SolitaireResponse, **JSON_BODY_RESPONSES},
    )
    def post(self, request):
        data = s.SolitaireRequest(data=request.data)
        data.is_valid(raise_exception=True)
        seed = data.validated_data.get("seed")
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        attributes = data.validated_data["attributes"]
        found, sets = SetGame(seed=seed, attributes=attributes).play_quiet()
        return Response(
            {
                "seed": seed,
                "attributes": attributes,
                "found": found,
                "cards_left": 3**attributes - 3 * found,
                "sets": [cards_json(taken) for taken in sets],
            }
        )


class RaceBestView(APIView):
    @extend_schema(
        tags=["Set races"],
        summary="The best times of a Set-N race, today's or of all time",
        description=(
            'A Set-N race (the option `"race": N` of a classic table, N 10, 20 or 30) ends at '
            "the N-th set found at the table; its time runs from the deal to that set. A board "
            "lists each account's best time, fastest first: races played alone, of the standard "
            "game (4 attributes, the whole deck, the standard board), with no hint, by accounts "
            "that are not bots (a guest's time shows on its own table only). The page: /races/."
        ),
        parameters=[s.RaceBestQuery],
        responses={
            200: s.RaceBestOut,
            400: error_response("`n` is not 10, 20 or 30, or `period` not day or all."),
        },
    )
    def get(self, request):
        query = s.RaceBestQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        n, period = query.validated_data["n"], query.validated_data["period"]
        return Response(
            {
                "n": n,
                "period": period,
                "day": timezone.localdate().isoformat(),
                "times": [
                    {key: row[key] for key in ("rank", "name", "ms", "seconds", "game", "finished")}
                    for row in races.best_times(n, period)
                ],
            }
        )
