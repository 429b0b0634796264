"""The page's catalogs: every message of a language, each game's seats, spots and settings, and a
table's layout phrases and house rules (additive to server.md's API). The words are `words`'."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi import Path as InPath
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.games import GAMES
from tapete.i18n import LANGUAGES, catalog
from tapete.server.catalogs.words import game_json, house_words
from tapete.server.errors import NotFound
from tapete.server.http import CasinoOf, who
from tapete.server.models import CasinoTable

router = APIRouter()


@router.get("/api/i18n/{lang}", tags=["page"])
async def get_catalog(lang: str) -> dict[str, Any]:
    """Every message of a language (es, en): the regulation's words, the games' phrases, the error
    messages and the web page's own words, merged from ``tapete/locale`` as every face reads them.
    No login needed: the login page speaks too."""
    if lang not in LANGUAGES:
        raise NotFound(f"no language {lang!r}; languages: es, en", key="err.setting.language", lang=lang)
    return {"lang": lang, "languages": list(LANGUAGES), "messages": dict(catalog(lang))}


@router.get("/api/games", tags=["page"])
async def get_games(request: Request) -> dict[str, Any]:
    """Each game's seats, spots, settings with their defaults, and each setting's type and bounds."""
    await who(request)
    return {"games": [game_json(g) for g in GAMES]}


@router.get("/api/tables/{table_id}/house-rules", tags=["page"])
async def get_house_rules(
    casino: CasinoOf, table_id: Annotated[int, InPath(ge=0, le=2**31 - 1)], request: Request
) -> dict[str, Any]:
    """The table's layout phrases and the house's rules (rules.md [A]) in every language."""
    await who(request)

    async def run(db: AsyncSession) -> dict[str, Any]:
        table = await db.get(CasinoTable, table_id)
        if table is None:
            raise NotFound(f"no table {table_id}", key="err.api.no_table", table=table_id)
        return house_words(table)

    async with casino.db() as db:
        return await run(db)
