import { describeSourceConformance } from "../conformance.js";
import { confluenceFixture } from "./confluence-fixture.js";

describeSourceConformance(confluenceFixture);
