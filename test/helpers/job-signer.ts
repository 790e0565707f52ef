import { JobSigner } from "../../src/queue/job-provenance.js";
import { WEBHOOK_SECRET } from "./github-app.js";

/** The signer of a test process configured by `testConfig()` (no OPEN_SWE_SECRET_KEY): jobs a test queues are the web tier's. */
export const testSigner = (): JobSigner => JobSigner.fromEnv({ WEBHOOK_SECRET });
