import { z } from "zod";

/** Where the worker answers on Linear: carried in the `source-event` job, checked again on the way out. */
export const LinearRef = z.object({
  issueId: z.string().min(1),
  teamId: z.string().min(1).optional(),
  trigger: z.enum(["comment", "assigned", "labelled"]),
  /** The triggering comment (trigger `comment`). */
  commentId: z.string().min(1).optional(),
  /** Replies go under the thread's top comment: Linear threads are one level deep. */
  parentId: z.string().min(1).optional(),
  /** The trigger label's id (trigger `labelled`), to find who added it. */
  labelId: z.string().min(1).optional(),
});
export type LinearRef = z.infer<typeof LinearRef>;
