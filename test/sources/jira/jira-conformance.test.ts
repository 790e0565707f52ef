import { describeSourceConformance } from "../conformance.js";
import { jiraFixture } from "./jira-fixture.js";

describeSourceConformance(jiraFixture);
