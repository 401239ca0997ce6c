#!/usr/bin/python3
"""Print the text drawn in a PDF that matplotlib wrote, one line per text object.

The e2e tests read a figure's titles, axis labels and legend entries with it; the set-up
installs no PDF tools (poppler-utils), and this needs only the standard library.

How: every content stream is inflated (FlateDecode; an uncompressed one is read as it is), and
within each text object (BT ... ET) the string operands of Tj and TJ are joined; TJ's numbers
(kerning) are dropped. This reads what matplotlib's PDF backend writes with Type 3 fonts
(`pdf.fonttype: 3`, its default, which the figure scripts set): strings in cp1252, one text
object per text item. A character outside cp1252 is drawn as a glyph, not a string: the
figure scripts keep titles and labels in cp1252 so that they can be read back here.

  tests/e2e/pdf_text.py figure.pdf      # one line per text item
"""
import re
import sys
import zlib

STREAM = re.compile(rb"stream\r?\n")
TEXT_OBJECT = re.compile(rb"\bBT\b(.*?)\bET\b", re.S)


def streams(data):
    """The content of every stream of the file, inflated where it inflates."""
    at = 0
    while True:
        m = STREAM.search(data, at)
        if not m:
            return
        end = data.find(b"endstream", m.end())
        if end < 0:
            return
        raw = data[m.end():end]
        try:
            yield zlib.decompressobj().decompress(raw)
        except zlib.error:
            yield raw
        at = end + len(b"endstream")


def literal_strings(block):
    """The PDF string literals (...) of a text object in order, escapes resolved."""
    out, i, n = [], 0, len(block)
    while i < n:
        if block[i:i + 1] != b"(":
            i += 1
            continue
        depth, i, s = 1, i + 1, bytearray()
        while i < n and depth:
            c = block[i:i + 1]
            if c == b"\\":
                nxt = block[i + 1:i + 2]
                octal = re.match(rb"[0-7]{1,3}", block[i + 1:i + 4])
                if octal:
                    s.append(int(octal.group(0), 8) & 0xFF)
                    i += 1 + len(octal.group(0))
                    continue
                s += {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}.get(nxt, nxt)
                i += 2
                continue
            if c == b"(":
                depth += 1
            elif c == b")":
                depth -= 1
                if depth == 0:
                    i += 1
                    break
            s += c
            i += 1
        out.append(bytes(s))
    return out


def text_items(data):
    for content in streams(data):
        for block in TEXT_OBJECT.finditer(content):
            text = b"".join(literal_strings(block.group(1))).decode("cp1252", "replace")
            if text.strip():
                yield text


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: pdf_text.py FILE.pdf")
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    if not data.startswith(b"%PDF"):
        sys.exit(f"pdf_text: {sys.argv[1]} is not a PDF file")
    for text in text_items(data):
        print(text)


if __name__ == "__main__":
    main()
