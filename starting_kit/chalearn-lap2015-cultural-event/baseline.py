#!/usr/bin/env python3
"""A chance-level baseline for ChaLearn LAP 2015 cultural event recognition: a random confidence per image and event.

    python baseline.py TEST_IMAGES OUT_DIR [--ids-out FILE]

TEST_IMAGES names the test images, either as the folder of the test images (their file names are the ids, e.g.
002234.jpg) or as a text file listing them (the first field of each line). The sample has no images: there
TEST_IMAGES is the folder of its per-category files (`<Category>_<set>.txt`), of which only the first field of each
line, the image id, is read. OUT_DIR receives one <Category>.txt per event of the challenge's 50, ready to be
zipped, with a random confidence per image (the same every run). Replace `predict` with your model.
Standard library only. --ids-out FILE also writes the image ids, one a line (the list `validate --ids` takes).
"""
import argparse
import os
import random
import sys

# the 50 events of the 2015 challenge, as the file names spell them
CATEGORIES = """
    Annual_Buffalo_Roundup Ati-atihan Ballon_Fiesta Basel_Fasnacht Battle_of_the_Oranges Boston_Marathon
    Bud_Billiken Buenos_Aires_Tango_Festival Carnaval_Dunkerque Carnival_of_Venice Carnival_Rio Castellers
    Chinese_New_Year Correfocs Desert_Festival_of_Jaisalmer Desfile_de_Silleteros Diada_de_Sant_Jordi
    Dia_de_los_Muertos Diwali_Festival_of_Lights Falles Festa_del_Renaixement Festival_de_la_Marinera
    Festival_of_the_Sun Fiesta_de_la_Candelaria Gion_matsuri Harbin_Ice_and_Snow_Festival Heiva
    Helsinki_Samba_Carnaval Holi_Festival Infiorata_di_Genzano La_Tomatina Lewes_Bonfire Macys_Thanksgiving
    Maslenitsa Midsommar Notting_hill_carnival Obon Oktoberfest Onbashira Pingxi_Lantern_Festival Pushkar_Camel
    Quebec_Winter_Carnival Queens_Day Rath_Yatra Sandfest San_Fermin Songkran_Water St_Patrick_Day Timkat
    Viking_Festival
""".split()
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png")


def first_fields(path):
    with open(path, encoding="utf-8") as f:
        return [line.split()[0] for line in f if line.strip()]


def test_ids(path):
    """The image ids, in first-seen order, from an image folder, a list file or the sample's category files."""
    if not os.path.isdir(path):
        return first_fields(path)
    names = sorted(os.listdir(path))
    images = [n for n in names if n.lower().endswith(IMAGE_EXTENSIONS)]
    if images:
        return images
    seen = {}
    for name in names:
        if name.endswith(".txt"):
            for image_id in first_fields(os.path.join(path, name)):
                seen.setdefault(image_id, None)
    return list(seen)


def predict(image_id, category, rng):
    """Your model here: a confidence that `image_id` shows `category` (higher = more likely)."""
    return rng.random()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("test_images")
    ap.add_argument("out_dir")
    ap.add_argument("--ids-out", help="also write the image ids here, one a line")
    args = ap.parse_args(argv)
    ids = test_ids(args.test_images)
    rng = random.Random(0)
    os.makedirs(args.out_dir, exist_ok=True)
    for category in CATEGORIES:
        with open(os.path.join(args.out_dir, category + ".txt"), "w", newline="\n") as f:
            f.writelines("%s %.6f\n" % (i, predict(i, category, rng)) for i in ids)
    if args.ids_out:
        with open(args.ids_out, "w", encoding="utf-8") as f:
            f.writelines(i + "\n" for i in ids)
    sys.stdout.write("wrote %d category file(s) for %d images to %s\n" % (len(CATEGORIES), len(ids), args.out_dir))
    return 0 if ids else 1


if __name__ == "__main__":
    sys.exit(main())
