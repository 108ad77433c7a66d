"""The game's static web archive, built from the public record and nothing else.

``build_site(lines, templates, name=...)`` turns the public record's lines (as
``GameService.public_record`` gives them) into ``{relative path: bytes}``: pure, apart from
reading its templates. ``write_site(files, target)`` writes them beside ``target`` and
swaps them in whole. The modules: ``folding`` (the record into one ``GameArchive`` per
game), ``archive`` (what the pages know), ``sayings`` (one line per event, as HISTORY
says it), ``chart`` (scores over time, an SVG), ``pages`` (the pages), ``writer``
(the folder), ``incremental`` and ``touching`` (the site kept page by page as the
record grows), ``search`` (the static index the search page reads), ``ruleset`` (the ruleset page's
rules, each kept while it reads the same), ``hosting`` (the index page of a host's games,
beside their archives).
"""

from speakerbot.site.hosting import HostedGame, build_host_index
from speakerbot.site.incremental import KeptSite, SiteUpdate
from speakerbot.site.pages import build_site, record_bytes
from speakerbot.site.writer import (
    MARKER,
    SiteWriteError,
    is_updatable,
    update_site,
    write_beside,
    write_site,
)

__all__ = ["MARKER", "HostedGame", "KeptSite", "SiteUpdate", "SiteWriteError",
           "build_host_index", "build_site", "is_updatable", "record_bytes", "update_site",
           "write_beside", "write_site"]
