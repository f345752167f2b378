#!/usr/bin/env python3
"""Runs `tic --emit=ast` on every ```tc block of a Markdown file.

usage: check_doc_examples.py TIC FILE.md OUTDIR
Prints one line per failing block and a summary line.
"""
import os
import re
import subprocess
import sys

tic, doc, outdir = sys.argv[1:4]
os.makedirs(outdir, exist_ok=True)
text = open(doc, encoding="utf-8").read()
blocks = re.findall(r"^```tc\n(.*?)^```", text, re.S | re.M)
failed = 0
for n, block in enumerate(blocks):
    path = os.path.join(outdir, "example%02d.tc" % n)
    with open(path, "w", encoding="utf-8") as f:
        f.write(block)
    r = subprocess.run([tic, "--emit=ast", path], capture_output=True, text=True)
    if r.returncode != 0:
        failed += 1
        print("FAILED block %d:\n%s" % (n, r.stderr))
print("%d blocks, %d failed" % (len(blocks), failed))
