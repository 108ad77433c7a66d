"""The lines of a proposal no form read that still speak of changing a rule: quoted back.

A proposal is never refused for its wording: a line that reads as a change none of the
natural forms understood (``Amend Rule 2201 by renumbering its list items``, ``Additionally,
repeal Rule 5``, ``If there is a rule titled "Dice", repeal it.``) is quoted back to its
proposer and left to the host, so that no change the proposal makes is silently dropped.
Each pattern is tried once from a fixed place (or searched once), so a long hostile line
costs one pass.
"""

from __future__ import annotations

from speakerbot.mail.inbound.language.prose.text import form, unmarked

__all__ = ["names_a_change", "speaks_of_change"]

# Words that may open a change: "Additionally, repeal Rule 5.", "Please also amend ...".
_OPENING = form(
    r"(?:(?:additionally|finally|also|further(?:more)?|then|next|lastly|moreover|and|please"
    r"|in\s++addition|similarly|likewise)\b[\s,]*+)*+"
)
# "Make the same change to Rule 206", "Do the same in Rule 206": looked for apart, in turn.
_SAME_CHANGE = form(
    r"\b(?:(?:same|similar)\s++(?:change|amendment|edit)s?|do\s++the\s++same|likewise|similarly"
    r"|(?:the\s++)?same\s++(?:goes\s++)?(?:for|applies\s++to))\b")
_RULE_NUMBER = form(r"(?:\brules?\s++#?|\br)[0-9]")
# A change verb right before a rule's number, anywhere in a line ("Upon adoption of this
# proposal, repeal Rule 5."): the last net for a change no form read.
_VERB_RULE = form(
    r"\b(?:amend|repeal|(?:re-?)?enact|transmute|retitle|replace|insert|append|delete|remove"
    r"|strike)\w*\s++(?:the\s++(?:text\s++of\s++)?)?(?:rules?\s++#?|r)[0-9]")
_SPEAKS_OF_CHANGE = form(
    r"(?:(?:amend|repeal|(?:re-?)?enact|transmute|retitle|renumber|replace|insert|append|delete|remove"
    r"|create|change|modify|strike|add|prepend)\w*\b.*?(?:\brules?\s++#?|\br)[0-9]"
    r"|(?:enact|create)\b.*?\bnew\s++(?:[\w-]+\s++){0,2}?rule\b"
    r"|(?:enact|create)\s++the\s++following\s++(?:[\w.=-]+\s++){0,2}?rule\s*+[,:]"
    r"|(?:also\s++)?amend\s++the\s++same\s++rule\b"
    r"|amend\s++the\s++(?:rule\s++(?:entitled|titled|named|called)|following\s++rules)\b"
    r"|repeal\s++(?:each\s++of\s++)?the\s++following\s++rules\b"
    r"|at\s++the\s++(?:end|start|beginning)\s++of\b.*?(?:\brules?\s++#?|\br)[0-9]"
    r"|(?:amend|repeal|transmute|retitle)\w*\s++(?:every|each|all|any)\s++(?:of\s++the\s++)?rules?\b"
    r"|(?:and|also|then)[\s,]++(?:also\s++)?(?:by\s++)?(?:add|replac|chang|delet|insert|append|remov|strik"
    r"|prepend)\w*\b"
    r"|rules?\s++#?[0-9]+.*?\b(?:is|are|be)\s++(?:also\s++)?(?:hereby\s++)?"
    r"(?:amended|repealed|enacted|transmuted|retitled|renamed)"
    r"|in\s++(?:rule\s++#?|r)[0-9]+\s*+,?\s*+(?:replace|insert|append|delete|remove|change|strike))"
)


def speaks_of_change(text: str) -> bool:
    """Tell whether a line seems to change a rule (used for the lines no form understood).

    Also after an opening word ("Additionally, repeal Rule 5."). Each pattern is tried once
    from a fixed place, so a long line costs one pass, not one from each of its words.
    """
    line = unmarked(text)
    opening = _OPENING.match(line)
    opened = line[opening.end():] if opening is not None else line
    if _SPEAKS_OF_CHANGE.match(line) is not None or _SPEAKS_OF_CHANGE.match(opened) is not None:
        return True
    if _VERB_RULE.search(line) is not None or (
            len(opened) < len(line) and _RULE_NUMBER.search(opened) is not None):
        return True  # a verb before a rule's number, or a rule after "And", "Also", ...
    same = _SAME_CHANGE.search(line)
    return same is not None and _RULE_NUMBER.search(line, same.end()) is not None


# A change of a rule the line names by title or by "it" ("If there is a rule titled "A
# Coin Award", repeal it.", "Repeal the rule "Dice" and its powers."): no rule's number, so
# speaks_of_change cannot see it.
_NAMES_A_CHANGE = form(
    r"\b(?:amend|repeal|(?:re-?)?enact|transmute|retitle|rename)\w*+\s++(?:it|them)\b"
    r"|\brules?\s++(?:entitled|titled|named|called)\b"
    r"|\b(?:amend|repeal|transmute|retitle|rename)\w*+\s++(?:the\s++)?rule\s++[\"“'(]")


def names_a_change(text: str) -> bool:
    """Tell whether a line changes a rule it names by title or by ``it`` (a condition's change).

    Such a line after the changes (``If there is a Rule entitled "Eclipse Light", amend it
    by adding ...``) governs none of them, yet makes a change of its own: it is quoted back.
    """
    return _NAMES_A_CHANGE.search(text) is not None
