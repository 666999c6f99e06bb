"""Recognition on labelled real sessions, whole set and leave-one-owner-out.

Usage: python tools/real_eval.py LABELS_DIR SESSIONS_DIR [--json OUT]
LABELS_DIR holds ``<name>.labels.json`` files (``{repo, must_keep: [{id, kind}], noise: [ids]}``);
SESSIONS_DIR the sessions as ``<name>.jsonl``. Figures, as the evaluation's ``recognition.py``
computes them: must-keep entries put in a must-keep category (recognised) and in the labelled one
(kind); labelled noise dropped or called noise; of the entries flagged must-keep, the share labelled.

Leave-one-owner-out: the owner is the repository a session comes from. The classifier's rules are
written by hand and nothing in them is fit on these sessions, so each held-out owner is scored with
the same rules; the table shows how far each owner's figures fall from the whole set's, which is
what a new owner should expect (a rule that fits one owner shows up as that owner's outlier).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from apollo.renal.classify import MUST_KEEP, classify
from apollo.transcript import read

FIGURES = ("recognised", "kind", "noise", "precision")


def counts(labels: dict, session: Path) -> dict[str, int]:
    """The raw counts for one session (summed before dividing, as recognition.py does)."""
    transcript = read(session, "openclaw")
    verdicts: dict[str, list] = defaultdict(list)
    for verdict in classify(transcript.elements):
        verdicts[verdict.id.split(":")[0]].append(verdict)
    must = {m["id"]: m["kind"] for m in labels["must_keep"]}
    flagged = [i for i, vs in verdicts.items() if any(v.category in MUST_KEEP for v in vs)]
    return {
        "must": len(must),
        "recognised": sum(1 for i in must if any(v.category in MUST_KEEP for v in verdicts.get(i, []))),
        "kind": sum(1 for i, k in must.items() if any(v.category == k for v in verdicts.get(i, []))),
        "noise_total": len(labels["noise"]),
        "noise": sum(1 for i in labels["noise"]
                     if all(v.category == "noise" or v.action == "drop" for v in verdicts.get(i, []))),
        "flagged": len(flagged),
        "precision": sum(1 for i in flagged if i in must),
    }


def figures(total: dict[str, int]) -> dict[str, float | None]:
    """The four shares (None where there is nothing to divide by: a session with no labelled noise)."""
    def share(part: str, whole: str) -> float | None:
        return total[part] / total[whole] if total[whole] else None

    return {"recognised": share("recognised", "must"), "kind": share("kind", "must"),
            "noise": share("noise", "noise_total"), "precision": share("precision", "flagged")}


def shown(value: float | None) -> str:
    return f"{value:10.3f}" if value is not None else f"{'n/a':>10}"


def add(into: dict[str, int], more: dict[str, int]) -> None:
    for key, value in more.items():
        into[key] = into.get(key, 0) + value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", type=Path)
    parser.add_argument("sessions", type=Path)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    by_owner: dict[str, dict[str, int]] = defaultdict(dict)
    whole: dict[str, int] = {}
    for path in sorted(args.labels.glob("*.labels.json")):
        labels = json.loads(path.read_text(encoding="utf-8"))
        session_counts = counts(labels, args.sessions / (path.name.removesuffix(".labels.json") + ".jsonl"))
        add(by_owner[labels["repo"]], session_counts)
        add(whole, session_counts)
    overall = figures(whole)
    print(f"{'held-out owner':40} " + " ".join(f"{f:>10}" for f in FIGURES) + "   (must-keep, flagged)")
    rows: dict[str, dict[str, float | None]] = {}
    for owner, total in sorted(by_owner.items()):
        rows[owner] = held_out = figures(total)
        print(f"{owner:40} " + " ".join(shown(held_out[f]) for f in FIGURES)
              + f"   ({total['must']}, {total['flagged']})")
    print(f"{'WHOLE SET':40} " + " ".join(shown(overall[f]) for f in FIGURES)
          + f"   ({whole['must']}, {whole['flagged']})")
    scored = {f: [value for r in rows.values() if (value := r[f]) is not None] for f in FIGURES}
    mean = {f: sum(scored[f]) / len(scored[f]) for f in FIGURES}
    spread = {f: max(abs(value - (overall[f] or 0.0)) for value in scored[f]) for f in FIGURES}
    print(f"{'mean over held-out owners':40} " + " ".join(shown(mean[f]) for f in FIGURES))
    print(f"{'largest owner gap from whole set':40} " + " ".join(shown(spread[f]) for f in FIGURES))
    if args.json:
        args.json.write_text(json.dumps({"whole": overall, "owners": rows, "mean_held_out": mean,
                                         "largest_gap": spread}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
