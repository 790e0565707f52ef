import { describe, expect, it } from "vitest";
import { formatTable } from "../../src/operator/format-table.js";

type Row = { id: string; n: number | null; note?: string };
const COLUMNS = [
  { header: "ID", cell: (r: Row) => r.id },
  { header: "N", cell: (r: Row) => r.n },
  { header: "NOTE", cell: (r: Row) => r.note },
];

describe("formatTable", () => {
  it.each([
    ["no rows: the header alone", [], "ID  N  NOTE"],
    [
      "columns as wide as their widest cell, no trailing space",
      [
        { id: "run-1", n: 12, note: "ok" },
        { id: "r2", n: 3, note: "a longer note" },
      ],
      "ID     N   NOTE\nrun-1  12  ok\nr2     3   a longer note",
    ],
    ["an empty cell shows as -; line breaks in a cell fold", [{ id: "r", n: null, note: "two\nlines" }], "ID  N  NOTE\nr   -  two lines"],
  ] as const)("%s", (_, rows, text) => {
    expect(formatTable(rows as readonly Row[], COLUMNS)).toBe(text);
  });
});
