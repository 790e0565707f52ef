import { describeSourceConformance } from "../conformance.js";
import { linearFixture } from "./linear-fixture.js";

describeSourceConformance(linearFixture);
