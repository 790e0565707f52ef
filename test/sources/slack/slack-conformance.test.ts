import { describeSourceConformance } from "../conformance.js";
import { slackFixture } from "./slack-fixture.js";

describeSourceConformance(slackFixture);
