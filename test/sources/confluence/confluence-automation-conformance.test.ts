import { describeSourceConformance } from "../conformance.js";
import { confluenceAutomationFixture } from "./confluence-automation-fixture.js";

describeSourceConformance(confluenceAutomationFixture);
