import nock from "nock";
import { afterEach, beforeAll } from "vitest";

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect((host) => host.startsWith("127.0.0.1") || host.startsWith("localhost"));
});

// A test that leaves an HTTP mock unused fails: the mock described a call the code no longer makes.
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  if (pending.length > 0) throw new Error(`unused HTTP mocks: ${pending.join(", ")}`);
});
