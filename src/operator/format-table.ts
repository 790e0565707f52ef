/** A column of a table: its header and the cell of a row (null or empty shows as `-`). */
export interface Column<Row> {
  header: string;
  cell(row: Row): string | number | null | undefined;
}

/** Pure: rows as aligned text columns, a header first, cells separated by two spaces; no trailing spaces. */
export function formatTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = [columns.map((c) => c.header), ...rows.map((r) => columns.map((c) => String(c.cell(r) ?? "").replace(/\s+/g, " ") || "-"))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells.map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")).join("\n");
}
