/**
 * Mocked GitHub exchanges that do not follow GitHub's description yet. Each entry is a tracked debt: the
 * contract helper lets the violation through for that test file and operation only, and
 * `npm run test:contracts` prints how many exchanges it excused. Fix the mock, then delete the entry.
 */
export interface KnownDrift {
  /** The test file, relative to the repository root. */
  file: string;
  /** The operation id (`pulls/list`), or `METHOD /path` for a route GitHub does not document. */
  operation: string;
  reason: string;
}

export const KNOWN_DRIFT: readonly KnownDrift[] = [];
