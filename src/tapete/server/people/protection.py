"""Player protection (server.md, "Player protection"; Ley 29907 and the practice of regulated online play):
a player's identity (DNI and birth date, 18 or older), the register of persons prohibited from the games
(loaded whole by the administrator), the limits a player sets himself (loss and wagers per day, session
minutes, the reality check's interval), and his self-exclusion.

`Protection` is the one service the login, buy-in, seat and bet paths ask, one line each. What it knows
of a player (his identity, whether the register holds his document, his exclusion and limits) is kept
per process and forgotten at once when it changes here or in another process (the broker's "forget"
message): a bet of a player without a daily limit asks the database nothing more; one with a daily
limit reads his day's wagers and net in one statement, sent ahead with the bets' own reads (PostgreSQL's
pipeline: no round trip of its own). Decisions are not bets and are never checked.

A refusal leaves everything as it was: it is raised inside the request's transaction, which rolls
back; its significant event is written after, in a transaction of its own (`noted`), before the answer.
"""

from __future__ import annotations

import csv
import io
import logging
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from tapete.errors import BadRequest, TapeteError
from tapete.server import models
from tapete.server.cashier import ledger
from tapete.server.errors import ApiError, Conflict, Forbidden, NotFound
from tapete.server.inspection.journal import note
from tapete.server.models import iso, utcnow
from tapete.server.people import repository as repo
from tapete.server.people.accounts import Caller
from tapete.server.sql import Json, Slot, Tx, read_time

log = logging.getLogger("tapete.server.people.protection")

#: the casino's calendar: a "day" of the daily limits is Lima's (Peru keeps UTC-5, no summer time)
LIMA = ZoneInfo("America/Lima")
#: the limits a player sets himself, each "lower is stricter"; None: no limit
LIMITS = ("loss_per_day", "wager_per_day", "session_minutes", "reality_check_minutes")
#: the reality check's interval when the player set none (server.md)
DEFAULT_REALITY_CHECK = 60
#: raising or removing a limit takes effect this long after it was asked
RAISE_DELAY = timedelta(hours=24)
#: how long a process trusts what it read of a player without reading it again, should a change made
#: in another process not be heard (the broker tells every process at once, and a process that lost its
#: broker forgets everything when it is back; this is the last safety net). What depends on the time (an
#: exclusion's end, a raise's 24 hours, the day, the session's minutes) is judged at each check.
TRUST_SECONDS = 300.0
DNI = re.compile(r"^[0-9]{8}$")
#: a document of the register: a DNI, or another identity document (carné de extranjería, passport)
REGISTER_DOCUMENT = re.compile(r"^[A-Za-z0-9]{4,20}$")
MAX_EXCLUSION_DAYS = 3650
#: the largest amount a limit may be (as a request's amount: api.MAX_AMOUNT)
MAX_LIMIT_AMOUNT = 10**12
MAX_MINUTES = 24 * 60


class LimitReached(ApiError):
    """A bet, or a seat, past a limit the player set himself (server.md: 403 limit_reached)."""

    code = "limit_reached"
    status = 403


@dataclass
class _Noted:
    """The significant event a refusal is to leave once its request's transaction has rolled back."""

    kind: str
    actor: str | None
    details: dict[str, Any]


def _refusal(exc: TapeteError, kind: str, actor: str | None, details: dict[str, Any]) -> TapeteError:
    """`exc` carrying the significant event it leaves (`Protection.noted` writes it)."""
    exc.protection_event = _Noted(kind, actor, details)  # type: ignore[attr-defined]
    return exc


def lima_day_start(now: datetime) -> datetime:
    """The moment (UTC) Lima's calendar day of `now` began: where a day's wagers and losses count from."""
    local = now.astimezone(LIMA)
    return local.replace(hour=0, minute=0, second=0, microsecond=0).astimezone(UTC)


#: the start of the Lima day the step counts a player's wagers and losses from (`_day_params`)
DAY_SINCE: Slot[datetime] = Slot("protection.day_since")


def _stricter(limit: str, new: int | None, old: int | None) -> bool:
    """Whether `new` is at least as strict as `old` (lower; a number is stricter than none)."""
    if limit == "reality_check_minutes":  # none means the default interval
        new = DEFAULT_REALITY_CHECK if new is None else new
        old = DEFAULT_REALITY_CHECK if old is None else old
    if new is None:
        return old is None
    return old is None or new <= old


@dataclass(frozen=True)
class Profile:
    """What protection knows of one player, as read at one moment."""

    user_id: int
    name: str
    document: str | None
    birth_date: str | None
    excluded_until: datetime | None
    prohibited: bool
    #: the limits as last set (`limits` applies the pending ones that matured)
    set: dict[str, int | None]
    #: limits raised or removed, waiting: name → {"value", "from"}
    pending: dict[str, dict[str, Any]]

    def limits(self, now: datetime) -> dict[str, int | None]:
        """The limits in force at `now`: a raise takes effect once its 24 hours passed; the reality check's
        interval is the default (60) when none is set."""
        out = dict(self.set)
        for name, wait in self.pending.items():
            if name in out and _parse_time(wait["from"]) <= now:
                out[name] = wait["value"]
        if out["reality_check_minutes"] is None:
            out["reality_check_minutes"] = DEFAULT_REALITY_CHECK
        return out

    def waiting(self, now: datetime) -> dict[str, dict[str, Any]]:
        """The raises that have not taken effect at `now`."""
        return {n: w for n, w in self.pending.items() if _parse_time(w["from"]) > now}

    def excluded(self, now: datetime) -> bool:
        """Whether his self-exclusion runs at `now`."""
        return self.excluded_until is not None and now < self.excluded_until

    @property
    def identified(self) -> bool:
        """Whether he carries both his document and his birth date."""
        return bool(self.document) and bool(self.birth_date)

    def needs_day(self, now: datetime) -> bool:
        """Whether his bets must read his day's wagers and net (a daily limit in force)."""
        limits = self.limits(now)
        return limits["loss_per_day"] is not None or limits["wager_per_day"] is not None


def _parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def limits_json(profile: Profile, now: datetime) -> dict[str, Any]:
    """The limits in force and any pending (server.md's answer of ``PUT /api/me/limits``)."""
    out: dict[str, Any] = dict(profile.limits(now))
    out["reality_check_default"] = DEFAULT_REALITY_CHECK
    out["pending"] = profile.waiting(now)
    return out


@dataclass
class Protection:
    """The protection of one server process: its checks, its per-process memory of each player."""

    #: the process's `app.Casino`, which holds this service (its store, its broker, its settings)
    casino: Any
    #: now, in UTC (tests inject another clock: a raise's 24 hours, an exclusion's end, Lima's day)
    clock: Callable[[], datetime] = field(default=lambda: models.utcnow())
    #: user id → (his profile, monotonic time it is trusted until)
    profiles: dict[int, tuple[Profile, float]] = field(default_factory=dict)
    #: session id → when it began (a session's start never changes)
    starts: dict[str, datetime] = field(default_factory=dict)
    #: moved by every change heard: a profile read while a change committed is not kept (it may be older)
    generation: int = 0

    def today(self) -> date:
        """Lima's calendar date now (a birth date's 18 years count to it)."""
        return self.clock().astimezone(LIMA).date()

    # -- memory -------------------------------------------------------------------------------------
    def forget(self, what: dict[str, Any] | None) -> None:
        """What changed, heard here or from another process: a player (``{"user": id}``, also said when
        his sessions end), or everyone (``{"protection": "all"}``: a register loaded; None: the broker
        reconnected and may have missed something)."""
        self.generation += 1
        if what is None or what.get("protection") == "all":
            self.profiles.clear()
            return
        for key in ("user", "protection"):
            found = what.get(key)
            if isinstance(found, int):
                self.profiles.pop(found, None)

    async def _changed(self, user_id: int | None) -> None:
        """Tell this process and the others that a player's protection (None: everyone's) changed."""
        what: dict[str, Any] = {"protection": "all" if user_id is None else user_id}
        self.forget(what)
        await self.casino.broker.forget(what)

    async def profile(self, tx: Tx, user_id: int, *, fresh: bool = False) -> Profile:
        """A player's profile: from this process's memory while it is trusted, else read (one statement)."""
        known = self.profiles.get(user_id)
        if known is not None and not fresh and time.monotonic() < known[1]:
            return known[0]
        generation = self.generation
        row = await tx.one(repo.PROFILE, {"user": user_id})
        if row is None:
            raise NotFound(f"no user {user_id}", key="err.api.no_user", name=str(user_id))
        name, document, birth, until, loss, wager, minutes, check, pending, on_register = row
        found = Profile(
            user_id=user_id,
            name=name,
            document=document,
            birth_date=birth,
            excluded_until=until,
            prohibited=bool(on_register),
            set={
                "loss_per_day": _int(loss),
                "wager_per_day": _int(wager),
                "session_minutes": _int(minutes),
                "reality_check_minutes": _int(check),
            },
            pending=dict(pending or {}),
        )
        if len(self.profiles) > 50_000:
            self.profiles.clear()
        if generation == self.generation:  # nothing changed while it was read: kept
            self.profiles[user_id] = (found, time.monotonic() + TRUST_SECONDS)
        return found

    async def session_start(self, tx: Tx, session_id: str) -> datetime:
        """When a session began (kept: it never changes)."""
        known = self.starts.get(session_id)
        if known is None:
            known = await tx.value(repo.SESSION_START, {"id": session_id}) or self.clock()
            if len(self.starts) > 50_000:
                self.starts.clear()
            self.starts[session_id] = known
        return known

    # -- the checks -----------------------------------------------------------------------------------
    def _barred(self, profile: Profile, now: datetime, where: str, *, identity: bool) -> None:
        """Forbidden for a player on the register, one who excluded himself, and (at a seat or a bet,
        with --require-identity) one without his identity."""
        details = {"player": profile.name, "where": where}
        if profile.prohibited:
            raise _refusal(
                Forbidden(
                    f"{profile.name} is on the register of persons prohibited from the games",
                    key="err.protection.prohibited",
                    player=profile.name,
                ),
                "protection_refused",
                profile.name,
                {**details, "reason": "prohibited", "document": profile.document},
            )
        if profile.excluded(now):
            until = iso(profile.excluded_until)
            raise _refusal(
                Forbidden(
                    f"{profile.name} excluded himself from the games until {until}",
                    key="err.protection.excluded",
                    player=profile.name,
                    until=until,
                ),
                "protection_refused",
                profile.name,
                {**details, "reason": "excluded", "until": until},
            )
        if identity and self.casino.settings.require_identity and not profile.identified:
            raise _refusal(
                Forbidden(
                    f"{profile.name} has no identity on record (document and birth date): see the cashier",
                    key="err.protection.identity",
                    player=profile.name,
                ),
                "protection_refused",
                profile.name,
                {**details, "reason": "identity"},
            )

    async def check_login(self, user_id: int, role: str) -> None:
        """A player on the register, or excluded by himself, does not log in: checked whatever his role
        now, so that giving an excluded player another role does not lift his exclusion (`role` unused but
        said: staff carry no identity, and a user who never was a player has nothing to find)."""
        del role
        async with self.casino.store.autocommit() as tx:
            profile = await self.profile(tx, user_id, fresh=True)
        self._barred(profile, self.clock(), "login", identity=False)

    async def check_buy_in(self, tx: Tx, user_id: int) -> None:
        """No chips for a player on the register, or excluded by himself (a cash-out is never refused)."""
        self._barred(await self.profile(tx, user_id), self.clock(), "buy_in", identity=False)

    async def check_seat(self, tx: Tx, caller: Caller) -> None:
        """A seat: the register, the exclusion, the identity, the session's minutes."""
        await self._may_play(tx, caller, "seat")

    async def _may_play(self, tx: Tx, caller: Caller, where: str) -> tuple[Profile, datetime] | None:
        """What a seat and a bet both check (the register, the exclusion, the identity, the session's
        minutes), and the player's profile as of now; None for staff, whom the seat's or the bet's own
        check refuses."""
        if caller.role != "player":
            return None
        profile = await self.profile(tx, caller.user_id)
        now = self.clock()
        self._barred(profile, now, where, identity=True)
        await self._session_minutes(tx, caller, profile, now, where)
        return profile, now

    async def _session_minutes(
        self, tx: Tx, caller: Caller, profile: Profile, now: datetime, where: str
    ) -> None:
        minutes = profile.limits(now)["session_minutes"]
        if minutes is None:
            return
        began = await self.session_start(tx, caller.session_id)
        played = int((now - began).total_seconds() // 60)
        if played >= minutes:
            raise _refusal(
                LimitReached(
                    f"{profile.name}'s session reached its {minutes} minutes",
                    key="err.protection.session_minutes",
                    player=profile.name,
                    limit="session_minutes",
                    value=minutes,
                    used=played,
                ),
                "limit_reached",
                profile.name,
                {"player": profile.name, "where": where, "limit": "session_minutes", "value": minutes},
            )

    def _day_params(self, tx: Tx, caller: Caller) -> dict[str, Any]:
        since = tx.info.get(DAY_SINCE)
        if since is None:
            since = lima_day_start(self.clock())
            tx.info.put(DAY_SINCE, since)
        return {"wallet": f"wallet:{caller.name}", "user": caller.user_id, "since": since}

    async def ahead_bets(self, tx: Tx, callers: Iterable[Caller]) -> None:
        """Send the day's reads of the bettors with a daily limit ahead, with the bets' own reads."""
        now = self.clock()
        for caller in callers:
            known = self.profiles.get(caller.user_id)
            if caller.role == "player" and known is not None and known[0].needs_day(now):
                await tx.ahead(repo.DAY, self._day_params(tx, caller))

    async def check_bet(self, tx: Tx, caller: Caller, amount: object) -> None:
        """A bet (or a back-bet request): the register, the exclusion, the identity, the session's
        minutes, and the day's wagers and losses with this bet (as if it were lost whole)."""
        found = await self._may_play(tx, caller, "bet")
        if found is None:
            return
        profile, now = found
        if not profile.needs_day(now) or not isinstance(amount, int) or amount <= 0:
            return
        limits = profile.limits(now)
        row = await tx.one(repo.DAY, self._day_params(tx, caller))
        assert row is not None
        wagered, net, bets, asks = (int(v or 0) for v in (row.staked, row.net, row.on_bets, row.on_requests))
        funds = tx.info.slot(ledger.FUNDS).get(caller.name)  # kept up to date by the bets of this step
        committed = funds[0] - funds[1] if funds is not None else bets + asks
        checks = (
            ("wager_per_day", wagered + committed),
            ("loss_per_day", -net + committed),
        )
        for limit, used in checks:
            value = limits[limit]
            if value is not None and used + amount > value:
                raise _refusal(
                    LimitReached(
                        f"{caller.name}: this bet of {amount} would take the day's "
                        f"{'wagers' if limit == 'wager_per_day' else 'losses'} to {used + amount}, past "
                        f"{value}",
                        key=f"err.protection.{limit}",
                        player=caller.name,
                        limit=limit,
                        value=value,
                        used=max(used, 0),
                        amount=amount,
                    ),
                    "limit_reached",
                    caller.name,
                    {
                        "player": caller.name,
                        "where": "bet",
                        "limit": limit,
                        "value": value,
                        "used": used,
                        "amount": amount,
                    },
                )

    async def noted(self, exc: BaseException) -> None:
        """Write the significant event of a refusal of protection, once (its request's transaction
        rolled back): called where a refusal becomes its answer, before the answer is sent."""
        event: _Noted | None = getattr(exc, "protection_event", None)
        if event is None:
            return
        exc.protection_event = None  # type: ignore[attr-defined]
        casino = self.casino
        try:
            async with casino.write_lock(), casino.store.transaction() as tx:
                await note(tx, event.kind, actor=event.actor, details=event.details)
        except Exception:  # the refusal is answered all the same; the log says what was not written
            log.exception(
                "a refusal's significant event could not be written: %s %s", event.kind, event.details
            )

    # -- what a player sees -------------------------------------------------------------------------
    async def me(self, caller: Caller) -> dict[str, Any]:
        """``/api/me``'s additions for a player: his session (when it began, the login before it, what
        he wagered and his net since) and his limits."""
        async with self.casino.store.transaction(write=False) as tx:
            profile = await self.profile(tx, caller.user_id)
            began = await self.session_start(tx, caller.session_id)
            # MAX(...) has no declared type: SQLite gives its text
            previous = read_time(
                await tx.value(repo.PREVIOUS_LOGIN, {"user": caller.user_id, "began": began})
            )
            row = await tx.one(repo.SINCE, {"wallet": f"wallet:{caller.name}", "since": began})
        wagered, net = (int(v or 0) for v in row or (0, 0))
        now = self.clock()
        return {
            "session": {
                "started_at": iso(began),
                "previous_login": iso(previous),
                "wagered": wagered,
                "net": net,
                "now": iso(now),
            },
            "limits": limits_json(profile, now),
        }

    # -- changes --------------------------------------------------------------------------------------
    async def set_limits(self, caller: Caller, asked: dict[str, int | None]) -> dict[str, Any]:
        """The player's new limits: a lower one in force at once (and any raise of it waiting is
        dropped), a higher one or none 24 hours from now (shown as pending)."""
        caller.need("player")
        now = self.clock()
        changes: dict[str, Any] = {}

        async def run(tx: Tx) -> dict[str, Any]:
            profile = await self.profile(tx, caller.user_id, fresh=True)
            current = profile.limits(now)
            pending = profile.waiting(now)
            for name, value in asked.items():
                if _stricter(name, value, current[name]):
                    current[name] = value
                    pending.pop(name, None)
                    changes[name] = {"value": value, "from": iso(now)}
                else:
                    pending[name] = {"value": value, "from": iso(now + RAISE_DELAY)}
                    changes[name] = pending[name]
            await tx.run(repo.UPSERT_LIMITS, {"user": caller.user_id, **current, "pending": Json(pending)})
            await note(
                tx, "limits_changed", actor=caller.name, details={"player": caller.name, "changes": changes}
            )
            kept = replace(profile, set=current, pending=pending)
            return limits_json(kept, now)

        out: dict[str, Any] = await self.casino.run_tx(run)
        await self._changed(caller.user_id)
        return out

    async def exclude(self, caller: Caller, days: int) -> dict[str, Any]:
        """The player excludes himself for `days`: every session of his ends at once (his open WebSockets
        are closed), and every login of his is refused until then. Never shortened."""
        caller.need("player")
        now = self.clock()

        async def run(tx: Tx) -> dict[str, Any]:
            profile = await self.profile(tx, caller.user_id, fresh=True)
            until = now + timedelta(days=days)
            if profile.excluded_until is not None and profile.excluded_until > until:
                until = profile.excluded_until
            await tx.run(repo.UPSERT_EXCLUSION, {"user": caller.user_id, "until": until})
            await tx.run(repo.END_SESSIONS, {"user": caller.user_id, "now": utcnow()})
            await note(
                tx,
                "self_excluded",
                actor=caller.name,
                details={"player": caller.name, "days": days, "until": iso(until)},
            )
            return {"until": iso(until)}

        out: dict[str, Any] = await self.casino.run_tx(run)
        await self._changed(caller.user_id)
        await self.casino.sessions.forget(user=caller.user_id)
        return out

    async def load_register(self, caller: Caller, body: bytes) -> dict[str, Any]:
        """The register of prohibited persons replaced whole (one transaction) from CSV lines
        ``document,since`` (a header line naming them may come first); a line that does not read
        refuses the whole load, naming it."""
        caller.need("admin")
        entries = parse_register(body)
        now = self.clock()

        async def run(tx: Tx) -> dict[str, Any]:
            await tx.run(repo.CLEAR_REGISTER)
            for start in range(0, len(entries), 5000):
                rows = [{"document": d, "since": s} for d, s in entries[start : start + 5000]]
                await tx.insert(repo.REGISTER_ROWS, rows)
            await tx.run(repo.REGISTER_META, {"entries": len(entries), "at": now, "by": caller.name})
            barred = [name for (name,) in await tx.all(repo.PROHIBITED_USERS)]
            await note(
                tx,
                "register_loaded",
                actor=caller.name,
                details={"entries": len(entries), "players_on_it": barred},
            )
            return {"entries": len(entries), "loaded_at": iso(now), "players_on_it": barred}

        out: dict[str, Any] = await self.casino.run_tx(run)
        await self._changed(None)
        return out

    async def register(self) -> dict[str, Any]:
        """How many entries the register holds and when it was loaded."""
        async with self.casino.store.transaction(write=False) as tx:
            row = await tx.one(repo.REGISTER_READ)
        if row is None:
            return {"entries": 0, "loaded_at": None, "loaded_by": None}
        return {"entries": int(row.entries), "loaded_at": iso(row.loaded_at), "loaded_by": row.loaded_by}

    async def player(self, name: str) -> dict[str, Any]:
        """A player's identity and protection as staff see it."""
        async with self.casino.store.transaction(write=False) as tx:
            found = await tx.one(repo.PLAYER_ID, {"name": name})
            if found is None:
                raise NotFound(f"no player {name}", key="err.api.no_player", name=name)
            profile = await self.profile(tx, int(found.id), fresh=True)
        now = self.clock()
        return {
            "player": found.name,
            "document": profile.document,
            "birth_date": profile.birth_date,
            "identified": profile.identified,
            "prohibited": profile.prohibited,
            "excluded_until": iso(profile.excluded_until) if profile.excluded(now) else None,
        }

    async def set_identity(
        self, db: AsyncSession, user_id: int, name: str, role: str, ident: Identity, actor: str
    ) -> None:
        """Write a player's identity in the users' transaction (`POST`/`PATCH /api/users`): a document
        another player carries is a conflict."""
        if ident.empty:
            return
        if role != "player":
            raise BadRequest("only a player carries an identity", key="err.protection.not_player", name=name)
        held = await db.get(models.PlayerProtection, user_id)
        document = ident.document if ident.document is not None else (held.document if held else None)
        birth = ident.birth_date if ident.birth_date is not None else (held.birth_date if held else None)
        if document is not None:
            other = await db.scalar(
                select(models.PlayerProtection.user_id).where(
                    models.PlayerProtection.document == document, models.PlayerProtection.user_id != user_id
                )
            )
            if other is not None:
                raise Conflict(
                    "another player carries this document", key="err.protection.document_taken", name=name
                )
        if held is None:
            db.add(models.PlayerProtection(user_id=user_id, document=document, birth_date=birth))
        else:
            held.document, held.birth_date = document, birth
        db.add(
            models.SignificantEvent(
                kind="identity_set",
                actor=actor,
                details={"player": name, "document": document, "birth_date": birth},
            )
        )

    async def identity_changed(self, user_id: int) -> None:
        """After the users' transaction that wrote an identity committed."""
        await self._changed(user_id)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class Identity:
    """A player's identity as a request gives it (either part may be absent)."""

    document: str | None = None
    birth_date: str | None = None

    @property
    def empty(self) -> bool:
        """Nothing given."""
        return self.document is None and self.birth_date is None


def identity_of(document: object, birth_date: object, today: date) -> Identity:
    """A request's identity, checked: a DNI is 8 digits, a birth date an ISO date, and nobody under 18
    (bad_request)."""
    if document is not None and (not isinstance(document, str) or not DNI.match(document)):
        raise BadRequest(
            "a document (DNI) is 8 digits", key="err.protection.document", document=str(document)
        )
    if birth_date is not None:
        try:
            born = date.fromisoformat(birth_date) if isinstance(birth_date, str) else None
        except ValueError:
            born = None
        if born is None or not isinstance(birth_date, str) or len(birth_date) != 10:
            raise BadRequest(
                "a birth date is an ISO date (YYYY-MM-DD)",
                key="err.protection.birth_date",
                value=str(birth_date),
            )
        age = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
        if age < 18:
            raise BadRequest(
                f"a player is 18 or older (born {birth_date}: {max(age, 0)})",
                key="err.protection.under_age",
                age=max(age, 0),
            )
    return Identity(document, birth_date)


def parse_register(body: bytes) -> list[tuple[str, str | None]]:
    """The register's lines, ``document,since``: each document once (the first line of it kept), `since`
    an ISO date or empty; a header line naming the columns is skipped. A line that does not read is
    bad_request naming it, and nothing is loaded."""
    try:
        content = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadRequest("the register is CSV text in UTF-8", key="err.protection.register_text") from None
    seen: set[str] = set()
    out: list[tuple[str, str | None]] = []
    for number, fields in enumerate(csv.reader(io.StringIO(content)), start=1):
        cells = [c.strip() for c in fields]
        if not any(cells):
            continue
        if number == 1 and cells[0].lower() in ("document", "documento", "dni"):
            continue
        document = cells[0]
        since = cells[1] if len(cells) > 1 and cells[1] else None
        problem = not REGISTER_DOCUMENT.match(document) or len(cells) > 2
        if since is not None and not problem:  # an ISO date, or a date and time (its date kept)
            try:
                since = datetime.fromisoformat(since.replace("Z", "+00:00")).date().isoformat()
            except ValueError:
                problem = True
        if problem:
            raise BadRequest(
                f"line {number} of the register does not read as document,since",
                key="err.protection.register_line",
                line=number,
            )
        if document not in seen:
            seen.add(document)
            out.append((document, since))
    return out


# ------------------------------------------------------------------------------------------ endpoints
