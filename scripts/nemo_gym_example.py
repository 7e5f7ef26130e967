"""Write the NeMo Gym resources server's example data: five Wordle games in NeMo Gym's row form.

    python scripts/nemo_gym_example.py

writes ``integrations/nemo_gym/resources_servers/guessgym/data/example.jsonl`` (NeMo Gym's layout
asks for five example rows beside each server); ``--check`` exits 1 where the file differs from
what this revision writes (the NeMo Gym integration's test runs it that way).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from guessgym.adapters.nemo_gym import nemo_gym_rows

TARGET = Path(__file__).resolve().parents[1] / "integrations/nemo_gym/resources_servers/guessgym/data/example.jsonl"
#: The agent the layout's config (configs/guessgym.yaml) names to play the rows.
AGENT = "guessgym_gymnasium_agent"


def example_text() -> str:
    rows = nemo_gym_rows("guessgym/WordleChat-v0", games=5, seed=0, agent=AGENT)
    return "".join(json.dumps(row) + "\n" for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    text = example_text()
    if args.check:
        same = TARGET.is_file() and TARGET.read_text() == text
        print(f"{TARGET.name}: {'as this revision writes it' if same else 'differs from what this revision writes'}")
        return 0 if same else 1
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
