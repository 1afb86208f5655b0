"""The Class tab's *Several sections and the gradebook* panel (issue 37): pool other classes
(rooms) into this one's downloads by their instructor links, and download every decision
and outcome (CSV or Parquet) and the gradebook for Canvas or Moodle.

Each added section is checked with its own instructor key (and PIN) when added, and its key
again at every download, so a link that was replaced since stops counting at once. Wrong
links count against the Class tab's own wrong-key limit (`ClassTab.guesses`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from ..render import html_join, html_text
from ..rooms import Refused, RoomsUnavailable, unavailable_reply
from ..session import Reply
from .download import DownloadButton
from .keeper import parse_instructor_link
from .widgets import Messages, button

if TYPE_CHECKING:
    from ..rooms.sections import Section
    from .class_tab import ClassTab

EXPLAIN = (
    "<p>Pool other sections of the course: paste another class's instructor link. The "
    "downloads below then hold every pooled section, with the section as a column. The "
    "gradebook matches students by the student ID or email they typed at join (tick <i>Ask "
    "for a student ID at join</i> when opening a class); students without one are listed "
    "here, not guessed from their names.</p>"
)


class ExportsPanel:
    """Other sections pooled with the Class tab's own class, and the downloads of them all."""

    def __init__(self, tab: ClassTab) -> None:
        w = widgets
        self.tab = tab
        self.others: list[tuple[str, str, str | None]] = []  # (code, key, label) added
        self.messages = Messages()
        self.link = w.Password(
            description="Instructor link",
            placeholder="another class's instructor link",
            style={"description_width": "initial"},
            layout=w.Layout(width="420px"),
        )
        self.label = w.Text(
            description="Section label",
            placeholder="optional, e.g. Monday 9am",
            style={"description_width": "initial"},
        )
        self.pin = w.Password(description="Its PIN", placeholder="that class's PIN, if it has one")
        self.add_button = button("Add another section", lambda _: self.add())
        self.remove_picker = w.Dropdown(
            description="Section", style={"description_width": "initial"}
        )
        self.remove_button = button("Take it out", lambda _: self.take_out())
        self.listing = w.HTML()
        self.listing.add_class("am-sections")
        self.left_out = w.HTML()
        self.downloads = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.widget = w.VBox(
            [
                w.HTML("<h3>Several sections and the gradebook</h3>" + EXPLAIN),
                w.HBox(
                    [self.link, self.label, self.pin, self.add_button],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.messages.widget,
                self.listing,
                w.HBox(
                    [self.remove_picker, self.remove_button], layout=w.Layout(flex_flow="row wrap")
                ),
                self.downloads,
                self.left_out,
            ]
        )
        self.widget.add_class("am-class-exports")

    def answer(self, reply: Reply) -> bool:
        return self.messages.show(reply)

    # -- the sections --------------------------------------------------------------------------------
    def follow(self) -> None:
        """The Class tab opened (or went back to) a class: fresh download buttons (they
        read the tab's class at each click), and the list drawn again."""
        for old in self.downloads.children:
            old.close()
        self.downloads.children = self.download_buttons()
        self.draw()

    def add(self) -> bool:
        """Add the class whose instructor link (and PIN) was typed as another section."""
        from ..rooms.sections import MAX_SECTIONS, check_distinct, clean_label

        tab = self.tab
        try:
            if tab.code is None:
                raise Refused("Open a class (or go back to one) first.")
            code, key = parse_instructor_link(self.link.value)
            if not code:
                raise Refused(
                    "Paste the other class's whole instructor link (it holds its room code)."
                )
            tab.guesses.check("Too many wrong tries from this page.")
            try:
                info = tab.rooms.check_instructor(code, key, self.pin.value or None)
            except Refused:
                tab.guesses.add()
                raise
            if info.code == tab.code:
                raise Refused("That is this class's own link: it is in the sections already.")
            if len(self.others) + 1 >= MAX_SECTIONS:
                raise Refused(f"At most {MAX_SECTIONS} sections can be pooled at once.")
            label = clean_label(self.label.value, info.code)
            pooled = [(tab.code, tab.code), *[(c, lab or c) for c, _, lab in self.others]]
            check_distinct([*pooled, (info.code, label)])
        except Refused as err:
            return self.answer(Reply(False, str(err), "warning"))
        except RoomsUnavailable as err:
            return self.answer(unavailable_reply(err))
        self.others.append((info.code, str(key).strip(), label))
        self.link.value = self.pin.value = self.label.value = ""
        self.draw()
        return self.answer(Reply(True, f"Section {label} (room {info.code}) is pooled."))

    def take_out(self) -> bool:
        code = self.remove_picker.value
        if code is None:
            return self.answer(Reply(False, "Choose a section first.", "warning"))
        self.others = [o for o in self.others if o[0] != code]
        self.draw()
        return self.answer(Reply(True, f"Room {code} is no longer pooled."))

    def draw(self) -> None:
        tab = self.tab
        own = [html_text("<li>{} (this class)</li>", tab.code)] if tab.code else []
        rows = own + [
            html_text("<li>{} (room {})</li>", label or code, code)
            for code, _, label in self.others
        ]
        self.listing.value = html_text(
            "<p><b>Pooled sections ({})</b></p><ul>{}</ul>", len(rows), html_join(rows)
        )
        self.remove_picker.options = [(label or code, code) for code, _, label in self.others]

    def sections(self) -> list[Section]:
        """This class and every added one, each key checked again now (a replaced link
        stops counting); the tab's own tables are read as they stand."""
        from ..rooms.sections import check_distinct, open_section

        tab = self.tab
        if tab.code is None or tab.key is None:
            raise Refused("Open a class (or go back to one with its instructor link) first.")
        mine = open_section(
            tab.rooms, tab.code, tab.key, label=tab.code, with_pin=False, tables=tab.tables
        )
        others = [
            open_section(tab.rooms, code, key, label=label, with_pin=False)
            for code, key, label in self.others
            if code != tab.code  # the tab went back to a class that was pooled
        ]
        check_distinct([(s.code, s.label) for s in [mine, *others]])
        return [mine, *others]

    def guarded(self, make: Any) -> Any:
        """A download's maker that says on the panel why it made no file (a key that no
        longer opens a section, the database away) before giving up."""

        def made() -> Any:
            try:
                return make()
            except Refused as err:
                self.answer(Reply(False, str(err), "warning"))
                raise
            except RoomsUnavailable as err:
                self.answer(unavailable_reply(err))
                raise

        return made

    # -- the downloads ------------------------------------------------------------------------------
    def decisions_archive(self, file_format: str) -> bytes:
        from ..rooms.sections import tidy_archive, tidy_decisions, tidy_outcomes

        sections = self.sections()
        rooms = self.tab.rooms
        return tidy_archive(
            tidy_decisions(rooms, sections), tidy_outcomes(rooms, sections), file_format
        )

    def gradebook(self, lms: str) -> str:
        """The gradebook file for "canvas" or "moodle"; the students it leaves out (no ID,
        or the other kind) are listed under the buttons."""
        from ..rooms.gradebook import canvas_csv, moodle_csv, participation

        sections = self.sections()
        frame = participation(self.tab.rooms, sections)
        book = (canvas_csv if lms == "canvas" else moodle_csv)(frame)
        self.show_left_out(book.left_out, book.match_by, len(book.rows))
        return book.text

    def show_left_out(self, left: Any, match_by: str, kept: int) -> None:
        kind = "email" if match_by == "email" else "student ID"
        if not len(left):
            self.left_out.value = html_text(
                "<p>The gradebook holds all {} students, matched by {}.</p>", kept, kind
            )
            return
        items = html_join(
            html_text(
                "<li>{} (section {}, table {}): {}</li>", r.name, r.section, r.table, r.reason
            )
            for r in left.itertuples()
        )
        self.left_out.value = html_text(
            "<p role='status'><b>{} students are not in the gradebook</b> (it matches {} "
            "students by {}); enter their grades by hand:</p><ul>{}</ul>",
            len(left),
            kept,
            kind,
            items,
        )

    def download_buttons(self) -> list[DownloadButton]:
        return [
            DownloadButton(
                "amteach-decisions-csv.zip",
                self.guarded(lambda: self.decisions_archive("csv")),
                description="Decisions (CSV)",
                tooltip="Every decision and every seat's outcome of all pooled sections",
                mime="application/zip",
            ),
            DownloadButton(
                "amteach-decisions-parquet.zip",
                self.guarded(lambda: self.decisions_archive("parquet")),
                description="Decisions (Parquet)",
                tooltip="Every decision and every seat's outcome of all pooled sections",
                mime="application/zip",
            ),
            DownloadButton(
                "amteach-gradebook-canvas.csv",
                self.guarded(lambda: self.gradebook("canvas")),
                description="Gradebook for Canvas (CSV)",
                mime="text/csv",
            ),
            DownloadButton(
                "amteach-gradebook-moodle.csv",
                self.guarded(lambda: self.gradebook("moodle")),
                description="Gradebook for Moodle (CSV)",
                mime="text/csv",
            ),
        ]
