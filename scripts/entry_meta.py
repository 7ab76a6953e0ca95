"""Reading an entry's `.meta` file, for the scripts: one JSON line (written since the format
became JSON lines), or the `key=value` line of older outputs. Either way a dict with `size`,
`valid` (bool), `edges`, `new_edges`, `mutator`, `time` (seconds), `trimmed_from` when set,
and for a fault `kind`, `signature` (16 hex digits: its bucket), `message`, `frames`, and in
outputs of this version `location` (what the bucket was computed from) and `flaky` when set."""
import json


def parse_meta(text):
    lines = text.splitlines()
    if not lines:
        return {}
    first = lines[0]
    if first.lstrip().startswith("{"):
        try:
            record = json.loads(first)
        except ValueError:
            return {}
        fault = record.pop("fault", None) or {}
        record.update(fault)
        return record
    record = {}
    if " message=" in first:
        first, message = first.split(" message=", 1)
        record["message"] = message.strip('"')
    for field in first.split(" "):
        key, _, value = field.partition("=")
        if not _:
            continue
        if key == "valid":
            record[key] = value == "yes"
        elif key in ("size", "edges", "new_edges", "trimmed_from"):
            record[key] = int(value) if value.isdigit() else None
        elif key == "time":
            try:
                record[key] = float(value.rstrip("s"))
            except ValueError:
                pass
        else:
            record[key] = value
    record["frames"] = [l.strip()[3:] for l in lines[1:] if l.startswith("  at ")]
    return record


def read_meta(path):
    with open(path, errors="replace") as f:
        return parse_meta(f.read())
