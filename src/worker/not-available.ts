import { UnrecoverableError } from "bullmq";

/** A queue whose feature has not landed yet fails its jobs with this, visibly, instead of pretending. */
export function notAvailableYet(feature: string): never {
  throw new UnrecoverableError(`${feature} is not available yet in this version of Open SWE`);
}
