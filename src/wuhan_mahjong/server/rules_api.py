"""``GET /api/rules``: every profile and rule option with its explanation, for the rules page.

The document is built from :mod:`wuhan_mahjong.rules` itself: the option names, each
profile's values, the English explanations (the options' ``doc`` metadata) and the
bounds), and worked examples settled by the scoring module under each profile.  So the
browser's rules page (``web/rules.js``) cannot drift from the code.
The Chinese labels and explanations live here, one per option, and the settlement's
factors with the option that sets each; ``tests/web/test_chat_rules.py`` fails when an
option or a factor of ``scoring`` has none.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..rules import DEFAULT_PROFILE, OPTION_BOUNDS, PROFILES, Rules, get_rules
from ..tiles import NUM_KINDS, tile_str

__all__ = ["EXAMPLES", "FACTOR_TEXT", "PROFILE_TEXT", "RULE_TEXT", "VALUE_TEXT", "rules_document",
           "rules_routes"]

PROFILE_TEXT: dict[str, tuple[str, str, str, str]] = {
    # name: (label zh, label en, explanation zh, explanation en)
    "yuanhang": ("远航", "Yuanhang",
                 "远航游戏的规则（默认）：口口翻，每开一口都翻倍；至少一家要付够 20 分才能胡。",
                 "The Yuanhang rules (the default): 口口翻, every opening doubles; at least one loser "
                 "must owe 20 to win."),
    "bianfeng": ("边锋", "Bianfeng",
                 "边锋游戏的规则：开口翻，开口只翻一次；癞子皮杠在"
                 "口口翻时有效；每家都要付够 8 分；银子和等级。",
                 "The Bianfeng rules: 开口翻, an opening doubles once; 癞子皮杠 counts in 口口翻; every "
                 "loser must owe 8; silver and levels."),
    "laizishanzhuang": ("赖子山庄", "Laizi Shanzhuang",
                        "赖子山庄的规则：红中和发财都要杠出；大胡相加"
                        "；封顶、金顶、光明顶更高；抢杠按抢杠者的牌算。",
                        "The Laizi Shanzhuang rules: 红中 and 发财 must both be konged; big hands add up; "
                        "higher caps, golden and bright caps; a robbed kong scores the robber's hand."),
}

RULE_TEXT: dict[str, tuple[str, str, str]] = {
    # name: (label zh, label en, explanation zh); the English explanation is the option's doc
    "must_kong": ("必杠牌", "Must-kong tiles", "这些牌只能单张杠出（红中杠、发财杠），留在手里就不能胡。"),
    "opening_scoring": ("开口计番", "Opening doubles",
                        "口口翻：每开一口（吃、碰、冲杠）都翻一倍；开口翻：开了口只翻一次。"),
    "direct_kong_opens": ("冲杠算开口", "A 冲杠 opens", "杠别人打出的牌（冲杠）算开口。"),
    "laizi_kong_factor": ("癞子杠倍数", "Laizi kong factor", "每个癞子杠（把癞子当杠打出）的倍数。"),
    "laizi_discard_factor": ("丢癞子倍数", "Laizi discard factor",
                             "每次丢癞子（不杠、直接打出癞子）的倍数。"),
    "special_kong_factor": ("红中杠倍数", "Red/green kong factor", "每个红中杠、发财杠的倍数。"),
    "pi_kong": ("癞子皮杠", "Skin kong (皮杠)",
                "癞子皮（翻出的那张牌的同种牌）单张打出算杠：关、开，或只在口口翻时有效。"),
    "pi_kong_factor": ("皮杠倍数", "Skin kong factor", "每个癞子皮杠的倍数。"),
    "big_hand_accumulation": ("大胡叠加", "Several big hands",
                              "几个大胡同时成立：相乘为 10×2^(n−1)，相加为 10×n。"),
    "fengyise_big_hands": ("风一色算几个大胡", "风一色 counts as", "风一色按几个大胡计算。"),
    "pengpenghu": ("碰碰胡", "碰碰胡 (all pungs)", "全是刻子（碰碰胡）算大胡。"),
    "situational_big_hands_need_258": ("杠上花等要二五八将", "Situational hands need a 2/5/8 pair",
                                       "杠上花、海底捞、抢杠如果本来是小胡的牌型，要有二五八作将。"),
    "small_hand_max_laizi": ("小胡最多癞子", "Small hand: most laizi", "小胡胡牌时手里最多能有几个癞子。"),
    "min_score_one_loser": ("起胡分（至少一家）", "Minimum (one loser)",
                            "至少有一家要付到这个分数（未封顶前）才能胡；0 表示不限。"),
    "min_score_every_loser": ("起胡分（每一家）", "Minimum (every loser)",
                              "每一家都要付到这个分数（未封顶前）才能胡；0 表示不限。"),
    "cap_unit": ("封顶单位", "Cap unit", "封顶按底注计（300 即 300 分），还是按本局的基础分（1 或 10）计。"),
    "golden_trigger": ("金顶条件", "Golden cap when", "三家都达到（≥）还是都超过（>）封顶时算金顶。"),
    "cap": ("封顶（开口翻）", "Cap (开口翻)", "开口翻时每家最多付的分数。"),
    "contract_cap": ("包牌封顶（开口翻）", "Contract cap (开口翻)",
                     "有人承包或被抢杠时每份最多付的分数（开口翻）。"),
    "golden_cap": ("金顶（开口翻）", "Golden cap (开口翻)", "三家都到封顶时，每家付的分数（开口翻）。"),
    "bright_cap": ("光明顶（开口翻）", "Bright cap (开口翻)",
                   "金顶时，从没开过口的一家付的分数；0 表示没有这条（开口翻）。"),
    "cap_per_opening": ("封顶（口口翻）", "Cap (口口翻)", "口口翻时每家最多付的分数。"),
    "contract_cap_per_opening": ("包牌封顶（口口翻）", "Contract cap (口口翻)",
                                 "承包或被抢杠时每份最多付的分数（口口翻）。"),
    "golden_cap_per_opening": ("金顶（口口翻）", "Golden cap (口口翻)",
                               "三家都到封顶时，每家付的分数（口口翻）。"),
    "bright_cap_per_opening": ("光明顶（口口翻）", "Bright cap (口口翻)",
                               "金顶时，从没开过口的一家付的分数；0 表示没有（口口翻）。"),
    "robbing_settlement": ("抢杠结算", "Robbing a kong",
                           "杠进杠出：被抢杠的人按自己杠开的牌付；按抢杠者的牌：按抢杠者的牌算，被抢的人承包。"),
    "quanqiuren_contract": ("全求人承包", "全求人 contract",
                            "打二五八将：放冲的牌是二五八才承包；没听牌：放冲的人自己没听牌才承包。"),
    "one_suit_contract_hands": ("第三口承包的大胡", "Third feeder contracts for",
                                "喂了第三口（让人做成这些大胡）的人要承包。"),
    "winner_order": ("一炮多响", "Several winners", "一张牌几家都能胡时，从庄家数起第一家胡。"),
    "dealer_keeps_after_draw": ("荒庄连庄", "Dealer keeps after a draw", "荒庄（没人胡）后庄家继续坐庄。"),
    "claim_window_seconds": ("抢牌时间（秒）", "Claim window (s)",
                             "别人打出牌后，吃碰杠胡的时间（碰牌要快）。"),
    "turn_seconds": ("出牌时间（秒）", "Turn time (s)", "轮到自己时出牌的时间（服务器计时）。"),
    "end_phase_wall": ("海底张数", "Last-tiles wall", "牌墙剩下这么多张（摸牌之后）时进入海底。"),
    "final_draws": ("海底摸牌次数", "Final draws", "海底阶段摸几次牌，每次都不出牌。"),
    "escape_penalty": ("逃跑罚分（开口翻）", "Escape penalty (开口翻)",
                       "逃跑的人付的分数，由其他三家平分（开口翻）。"),
    "escape_penalty_per_opening": ("逃跑罚分（口口翻）", "Escape penalty (口口翻)", "逃跑罚分（口口翻）。"),
    "service_fee": ("台费", "Table fee", "每打完一场，每人付的银子（平台费）。"),
    "min_silver": ("最少银子", "Least silver",
                   "坐上底注为 1 的银子桌至少要有的银子（服务器按一局最多可能输的算，不会更少）。"),
}

VALUE_TEXT: dict[str, dict[str, tuple[str, str]]] = {
    "opening_scoring": {"per_opening": ("口口翻", "per opening (口口翻)"),
                        "once": ("开口翻", "once (开口翻)")},
    "pi_kong": {"off": ("关", "off"), "on": ("开", "on"), "with_per_opening": ("口口翻时", "in 口口翻 only")},
    "big_hand_accumulation": {"multiply": ("相乘", "multiply"), "add": ("相加", "add")},
    "cap_unit": {"stake": ("底注", "stakes"), "hand_base": ("基础分", "hand base")},
    "golden_trigger": {"reach": ("达到", "reach"), "exceed": ("超过", "exceed")},
    "robbing_settlement": {"konger_bloom": ("杠进杠出", "konger's bloom"),
                           "robber_hand": ("按抢杠者的牌", "robber's hand")},
    "quanqiuren_contract": {"jiang_discard": ("打二五八将", "2/5/8 discard"),
                            "not_ready": ("没听牌", "not ready")},
    "winner_order": {"from_dealer": ("从庄家数起", "from the dealer"),
                     "from_discarder": ("从放冲者数起", "from the discarder")},
    "one_suit_contract_hands": {"qingyise": ("清一色", "one suit"), "jiangyise": ("将一色", "all 2/5/8"),
                                "fengyise": ("风一色", "all honours")},
}


FACTOR_TEXT: dict[str, tuple[str, str, str, str, str | None]] = {
    # the settlement's factor ids (``scoring.Factor.id``): label zh, label en, explanation zh,
    # explanation en, and the rule option that sets its value (None: fixed by the rules)
    "base": ("基础分", "Base", "小胡 1 分；大胡 10 分，几个大胡按“大胡叠加”计。",
             "A small hand scores 1; a big hand 10, several big hands as 'several big hands' says.",
             "big_hand_accumulation"),
    "opening": ("开口", "Opening", "吃、碰、冲杠算开口：口口翻每口 ×2，开口翻只 ×2 一次。",
                "A chi, peng or direct kong opens the hand: x2 per opening (口口翻) or once (开口翻).",
                "opening_scoring"),
    "exposed_kong": ("明杠", "Exposed kong", "每个明杠（冲杠、蓄杠）×2。",
                     "x2 for each exposed kong (on a discard, or added).", None),
    "concealed_kong": ("暗杠", "Concealed kong", "每个暗杠 ×4。", "x4 for each concealed kong.", None),
    "red_kong": ("红中杠", "Red dragon kong", "每打出一张红中（红中杠）乘一次。",
                 "Each red dragon played out as a kong multiplies.", "special_kong_factor"),
    "green_kong": ("发财杠", "Green dragon kong", "赖子山庄里每打出一张发财（发财杠）乘一次。",
                   "Each green dragon played out as a kong multiplies (Laizi Shanzhuang).",
                   "special_kong_factor"),
    "laizi_kong": ("癞子杠", "Laizi kong", "每把癞子当杠打出乘一次。",
                   "Each laizi played out as a kong multiplies.", "laizi_kong_factor"),
    "pi_kong": ("癞子皮杠", "Skin kong", "每打出一张癞子皮乘一次（规则允许时）。",
                "Each indicator-kind tile played out multiplies (where the rules allow it).",
                "pi_kong_factor"),
    "laizi_discard": ("丢癞子", "Laizi discarded", "每次直接打出癞子乘一次。",
                      "Each laizi discarded without a kong multiplies.", "laizi_discard_factor"),
    "dealer": ("庄家", "Dealer", "小胡时庄家（赢或输）×2。",
               "x2 for the dealer, winning or paying, in a small hand.", None),
    "hard": ("硬胡", "Hard win", "不用癞子当别的牌胡（硬胡）×2。",
             "x2 for a win without a laizi standing in.", None),
    "self_draw": ("自摸", "Self-draw", "自摸：小胡 ×2，大胡 ×1.5。",
                  "Self-drawn: x2 in a small hand, x1.5 in a big one.", None),
    "deal_in": ("放冲", "Dealt in", "打出别人胡的牌的人：小胡 ×2，大胡 ×1.5。",
                "The player whose discard wins: x2 in a small hand, x1.5 in a big one.", None),
}


_SEATS_EMPTY = {"hand": "", "melds": []}

EXAMPLES: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    # id, title zh, title en, a settlement record (docs/score.md) without its profile: the rules
    # page shows what each profile's scoring makes of it
    ("small_hand", "小胡：吃碰两口，对家冲杠、红中杠、丢癞子后放冲",
     "A small hand: two openings; the discarder has a direct kong, a red kong and a laizi discard",
     {"dealer": 0, "indicator": "9p", "winner": 1, "win_by": "discard", "from": 2, "winning_tile": "5m",
      "seats": [dict(_SEATS_EMPTY),
                {"hand": "456p678s5m", "melds": [{"type": "chi", "tiles": "234m", "from": 0},
                                                 {"type": "peng", "tiles": "777s", "from": 3}]},
                {"hand": "", "melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 0}],
                 "kongs": {"red": 1, "green": 0, "laizi": 0, "pi": 0}, "laizi_discards": 1},
                {"hand": "", "melds": [], "ready": False}]}),
    ("qingyise", "清一色：庄家碰一口后自摸", "One suit (清一色): the dealer pengs once and draws the win",
     {"dealer": 0, "indicator": "3s", "winner": 0, "win_by": "self_draw", "winning_tile": "1m",
      "seats": [{"hand": "1123456789m", "melds": [{"type": "peng", "tiles": "555m", "from": 2}]},
                dict(_SEATS_EMPTY), dict(_SEATS_EMPTY), dict(_SEATS_EMPTY)]}),
)


def _examples() -> list[dict[str, Any]]:
    """Each example record settled by each profile (``calculator.score_record``, as the server
    and ``wuhan-mahjong score`` do)."""
    from ..calculator import score_record

    out = []
    for eid, title_zh, title_en, record in EXAMPLES:
        results = {}
        for profile in PROFILES:
            answer = score_record(json.dumps({**record, "profile": profile}))
            settled = answer.settled
            results[profile] = {"settled": settled, "settlement": answer.body if settled else None,
                                "reason": None if settled else answer.body.get("reason")}
        out.append({"id": eid, "title_zh": title_zh, "title_en": title_en, "record": record,
                    "results": results})
    return out


def _json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _laizi_table(by_profile: dict[str, Rules]) -> dict[str, dict[str, str]]:
    """The laizi that follows each indicator, per profile (the calculator page shows it)."""
    return {p: {tile_str(k): tile_str(r.laizi_of(k)) for k in range(NUM_KINDS)}
            for p, r in by_profile.items()}


@functools.cache
def rules_document() -> dict[str, Any]:
    """Profiles, options (labels, explanations, bounds, each profile's value) and value names."""
    by_profile = {name: get_rules(name) for name in PROFILES}
    options = []
    for f in dataclasses.fields(Rules):
        if f.name == "profile":
            continue
        label_zh, label_en, doc_zh = RULE_TEXT[f.name]
        bounds = OPTION_BOUNDS.get(f.name)
        options.append({
            "name": f.name, "label_zh": label_zh, "label_en": label_en,
            "doc_zh": doc_zh, "doc_en": f.metadata.get("doc", ""),
            "bounds": list(bounds) if bounds else None,
            "values": {p: _json(getattr(r, f.name)) for p, r in by_profile.items()},
            "value_labels": {k: list(v) for k, v in VALUE_TEXT.get(f.name, {}).items()},
        })
    profiles = [{"name": p, "label_zh": PROFILE_TEXT[p][0], "label_en": PROFILE_TEXT[p][1],
                 "doc_zh": PROFILE_TEXT[p][2], "doc_en": PROFILE_TEXT[p][3],
                 "overrides": {k: _json(v) for k, v in PROFILES[p].items()}} for p in PROFILES]
    factors = [{"id": fid, "label_zh": t[0], "label_en": t[1], "doc_zh": t[2], "doc_en": t[3],
                "option": t[4]} for fid, t in FACTOR_TEXT.items()]
    return {"default_profile": DEFAULT_PROFILE, "profiles": profiles, "options": options, "factors": factors,
            "laizi": _laizi_table(by_profile),
            "examples": _examples()}


async def rules_endpoint(request: Request) -> Response:
    return JSONResponse(rules_document(), headers={"Cache-Control": "public, max-age=300"})


def rules_routes() -> list[Route]:
    return [Route("/api/rules", rules_endpoint, methods=["GET"])]
