#!/usr/bin/env python3
"""
Check the links of README.md and docs/*.md: every relative link names a
file or folder of the repository, and every #anchor a heading of the page
it points to (headings slugged as GitHub slugs them: lower case, spaces to
hyphens, punctuation dropped, a repeated slug numbered -1, -2). Links that
leave the repository (a path above its root) are refused too; http(s) and
mailto links are not followed.

Usage: python3 tests/doclinks.py   (from the repository's root; exit 1 and
one line per broken link, exit 0 when all hold)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r'(?<!!)\[[^\]]*\]\(([^)\s]+)\)')


def slug(heading):
    text = re.sub(r'`', '', heading.strip()).lower()
    text = re.sub(r'[^\w\- ]', '', text, flags=re.UNICODE)
    return text.replace(' ', '-')


def anchors(path):
    seen = {}
    found = set()
    fence = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                fence = not fence
                continue
            m = None if fence else re.match(r'^#{1,6} (.*)$', line)
            if not m:
                continue
            s = slug(m.group(1))
            n = seen.get(s, 0)
            found.add(s if n == 0 else '%s-%d' % (s, n))
            seen[s] = n + 1
    return found


def links(path):
    """(line, target) of every link outside code; a link's text may span lines."""
    fence = False
    kept = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                fence = not fence
                kept.append('\n')
                continue
            kept.append('\n' if fence else re.sub(r'`[^`\n]*`', '', line))
    text = ''.join(kept)
    for m in LINK.finditer(text):
        yield text.count('\n', 0, m.start()) + 1, m.group(1)


def main():
    pages = [os.path.join(ROOT, 'README.md')]
    docs = os.path.join(ROOT, 'docs')
    pages += sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith('.md'))
    pages.append(os.path.join(ROOT, 'tests', 'bench', 'players.md'))
    bad = 0
    for page in pages:
        for number, target in links(page):
            if re.match(r'^(https?|mailto):', target):
                continue
            where = '%s:%d: %s' % (os.path.relpath(page, ROOT), number, target)
            file_part, _, anchor = target.partition('#')
            dest = page if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(page), file_part))
            if not dest.startswith(ROOT + os.sep) and dest != ROOT:
                print('%s: outside the repository' % where)
                bad += 1
            elif not os.path.exists(dest):
                print('%s: no such file' % where)
                bad += 1
            elif anchor and (not dest.endswith('.md') or anchor not in anchors(dest)):
                print('%s: no such heading' % where)
                bad += 1
    if bad:
        print('%d broken links' % bad)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
