import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import FILE_SECONDS from "./file-seconds.json" with { type: "json" };

const KNOWN: Record<string, number> = FILE_SECONDS;

/**
 * Longest files first, so the long multi-process files start at once and the short ones fill the forks at
 * the end (a long file started last is the suite's tail). A file's length is its last run's on this machine
 * (Vitest's results cache), else `file-seconds.json` (a fresh clone, as CI has, has no cache: Vitest would
 * order by file size, which says little here — test-isolation is 60 lines and the longest file). Files
 * known to neither keep Vitest's own order, after the known ones. Projects stay apart: the isolated
 * files first, then the shared ones, as Vitest orders them.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number => {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getTestSpecificationResult(spec)?.duration;
      return cached !== undefined ? cached / 1000 : (KNOWN[path] ?? -1);
    };
    const order = new Map(base.map((spec, i) => [spec, i]));
    return base.sort((a, b) => {
      if (a.project.name !== b.project.name) return order.get(a)! - order.get(b)!;
      return seconds(b) - seconds(a) || order.get(a)! - order.get(b)!;
    });
  }
}
