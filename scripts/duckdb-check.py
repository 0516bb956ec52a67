"""DuckDB over gcscope's Parquet: the fleet query of docs/guide/cli.md, against gcscope's own JSON.

Run by scripts/duckdb-check.sh (which installs the pinned duckdb). Arguments: the gcscope binary
and a folder of traces. Writes `gcscope gcs FOLDER --parquet`, then for every trace compares what
DuckDB computes from the Parquet file with `gcscope summary TRACE --json`: the number of GCs, of
complete GCs per generation, and the p50/p90/p99 pauses of the complete GCs (nearest rank, computed
in SQL with window functions, and DuckDB's own quantile_disc).
"""

import json
import os
import subprocess
import sys
import tempfile

import duckdb


def main():
    gcscope, folder = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="gcscope-duckdb-")
    parquet = os.path.join(tmp, "gcs.parquet")
    subprocess.run([gcscope, "gcs", folder, "--parquet", parquet], check=True)
    con = duckdb.connect()
    con.execute(f"CREATE VIEW gcs AS SELECT * FROM read_parquet('{parquet}')")

    counts = dict(con.sql("SELECT trace, count(*) FROM gcs GROUP BY trace").fetchall())
    per_gen = {
        (t, g): n
        for t, g, n in con.sql(
            "SELECT trace, gen, count(*) FROM gcs WHERE complete GROUP BY trace, gen"
        ).fetchall()
    }
    # Nearest rank: the ceil(p * n)-th shortest pause of the complete GCs with a pause.
    nearest = {}
    for p in (0.5, 0.9, 0.99):
        rows = con.sql(
            f"""SELECT trace, max(pause_ms) FILTER (WHERE rn = ceil({p} * n)) FROM (
                  SELECT trace, pause_ms,
                         row_number() OVER (PARTITION BY trace ORDER BY pause_ms) AS rn,
                         count(*) OVER (PARTITION BY trace) AS n
                  FROM gcs WHERE complete AND pause_ms IS NOT NULL)
                GROUP BY trace"""
        ).fetchall()
        nearest[p] = dict(rows)
    disc = {
        t: (a, b, c)
        for t, a, b, c in con.sql(
            """SELECT trace, quantile_disc(pause_ms, 0.5), quantile_disc(pause_ms, 0.9),
                      quantile_disc(pause_ms, 0.99)
               FROM gcs WHERE complete AND pause_ms IS NOT NULL GROUP BY trace"""
        ).fetchall()
    }

    traces = sorted(counts)
    checked = 0
    disc_differs = []
    for t in traces:
        s = json.loads(subprocess.run([gcscope, "summary", t, "--json"], check=True,
                                      capture_output=True, text=True).stdout)
        assert counts[t] == s["process"]["gc_count"], (t, counts[t], s["process"]["gc_count"])
        for r in s["rollup"]:
            if r["gen"] != "all":
                assert per_gen.get((t, int(r["gen"])), 0) == r["count"], (t, r["gen"])
        allp = next(p for p in s["pauses"] if p["kind"] == "all")
        for p, key in ((0.5, "p50_ms"), (0.9, "p90_ms"), (0.99, "p99_ms")):
            assert nearest[p].get(t) == allp[key], (t, key, nearest[p].get(t), allp[key])
            checked += 1
        if disc.get(t) != (allp["p50_ms"], allp["p90_ms"], allp["p99_ms"]):
            disc_differs.append(t)
    print(f"duckdb {duckdb.__version__}: {len(traces)} traces, {sum(counts.values())} GCs; "
          f"GC counts, per-generation counts and {checked} percentiles equal gcscope's JSON")
    if disc_differs:
        print(f"note: DuckDB's quantile_disc differs from nearest rank on {len(disc_differs)} traces")
    else:
        print("DuckDB's quantile_disc equals nearest rank on every trace")
    # The CLI guide's query, as a user would run it.
    print(con.sql(
        """SELECT trace, count(*) AS gcs, quantile_disc(pause_ms, 0.99) AS p99_ms,
                  max(pause_ms) AS max_ms
           FROM gcs WHERE complete GROUP BY trace ORDER BY p99_ms DESC LIMIT 3"""
    ))
    if len(traces) == 0:
        sys.exit("no traces")


if __name__ == "__main__":
    main()
