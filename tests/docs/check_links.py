#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the relative links of the project's Markdown pages.

    check_links.py SOURCE_DIR

Reads README.md, CHANGELOG.md and docs/*.md under SOURCE_DIR. Every link
whose target has no scheme (http:, mailto:, ...) must name a file or
directory that exists inside SOURCE_DIR (a link that leaves the repository
is broken on GitHub, whatever this checkout has beside it), and an #anchor
into a Markdown page (or into the page itself) must name one of its
headings, by GitHub's slug rules: the heading's text lower-cased, every
character but letters, digits, marks, spaces, '-' and '_' removed, each
space turned into '-', and a repeated slug numbered -1, -2, ... Links in
code blocks and code spans are not links. Prints one line per broken link
(FILE:LINE: TARGET: why) and exits 1, or prints what it checked and exits 0.
"""
import os
import re
import sys
import unicodedata
import urllib.parse

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target "title"), ![alt](target); text may hold one level of brackets.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def blank_code_spans(line):
    """The line with code spans replaced by spaces (their links are not links)."""
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def heading_text(raw):
    """What GitHub renders of a heading's Markdown, as far as slugs care."""
    t = re.sub(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)", r"\1", raw)  # links: their text
    t = re.sub(r"<[^>]+>", "", t)                                        # inline HTML
    t = t.replace("`", "")
    t = re.sub(r"(\*{1,3})(\S.*?\S|\S)\1", r"\2", t)                     # *emphasis*, **strong**
    t = re.sub(r"(?<!\w)(_{1,3})(\S.*?\S|\S)\1(?!\w)", r"\2", t)         # _emphasis_
    return t.strip()


def slug(text):
    out = []
    for ch in text.lower():
        if ch.isalnum() or ch in " -_" or unicodedata.category(ch).startswith("M"):
            out.append("-" if ch == " " else ch)
    return "".join(out)


def scan(path):
    """(links, anchors): links as (line number, target); the page's anchors."""
    links, anchors, counts = [], set(), {}

    def add_heading(raw):
        s = slug(heading_text(raw))
        n = counts.get(s, 0)
        counts[s] = n + 1
        anchors.add(s if n == 0 else f"{s}-{n}")

    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = None
    prev = ""  # the previous line, when it could be a setext heading's text
    for no, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
            prev = ""
            continue
        if m:
            fence = m.group(1)
            prev = ""
            continue
        if line.startswith("    ") and not prev:
            continue  # an indented code block
        a = ATX.match(line)
        if a:
            add_heading(a.group(2) or "")
            prev = ""
        elif SETEXT.match(line) and prev.strip() and not prev.lstrip().startswith(("|", "-", "*", "+", ">")):
            add_heading(prev.strip())
            prev = ""
            continue
        for h in HTML_ANCHOR.findall(line):
            anchors.add(h)
        text = blank_code_spans(line)
        for lm in INLINE_LINK.finditer(text):
            links.append((no, lm.group(1)))
        r = REF_DEF.match(text)
        if r:
            links.append((no, r.group(1)))
        prev = line if line.strip() and not a else ""
    return links, anchors


def main(argv):
    if len(argv) != 2:
        print("usage: check_links.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = os.path.realpath(argv[1])
    pages = [os.path.join(root, p) for p in ("README.md", "CHANGELOG.md") if os.path.isfile(os.path.join(root, p))]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        pages += sorted(os.path.join(docs, p) for p in os.listdir(docs) if p.endswith(".md"))
    if not pages:
        print(f"check_links: no Markdown pages under {root}", file=sys.stderr)
        return 2

    scanned = {}

    def page(path):
        if path not in scanned:
            scanned[path] = scan(path)
        return scanned[path]

    broken, checked = [], 0
    for src in pages:
        links, _ = page(src)
        for no, target in links:
            target = target[1:-1] if target.startswith("<") and target.endswith(">") else target
            if SCHEME.match(target) or target.startswith("//"):
                continue  # not relative: not checked here
            checked += 1
            file_part, _, anchor = target.partition("#")
            rel = os.path.relpath(src, root)
            where = f"{rel}:{no}: {target}"
            dest = src if not file_part else os.path.realpath(
                os.path.join(os.path.dirname(src), urllib.parse.unquote(file_part)))
            if dest != root and not dest.startswith(root + os.sep):
                broken.append(f"{where}: leaves the repository")
                continue
            if not os.path.exists(dest):
                broken.append(f"{where}: no such file")
                continue
            if anchor and dest.endswith(".md") and os.path.isfile(dest):
                if urllib.parse.unquote(anchor).lower() not in {a.lower() for a in page(dest)[1]}:
                    broken.append(f"{where}: no heading with that anchor in {os.path.relpath(dest, root)}")
    for b in broken:
        print(b)
    names = ", ".join(os.path.relpath(p, root) for p in pages)
    if broken:
        print(f"check_links: {len(broken)} of {checked} relative links broken in {len(pages)} pages ({names})")
        return 1
    print(f"check_links: {checked} relative links resolve in {len(pages)} pages ({names})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
