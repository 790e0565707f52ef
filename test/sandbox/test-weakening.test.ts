import { describe, expect, it } from "vitest";
import { countTestFacts, isTestPath, stripComments, testWeakening } from "../../src/sandbox/workspace/test-weakening.js";

const JS = `import { expect, it } from "vitest";
describe("sum", () => {
  it("adds", () => {
    expect(sum(1, 2)).toBe(3);
  });
  it("negatives", () => {
    expect(sum(-1, -2)).toBe(-3);
  });
});
`;
const PY = `import pytest

def test_adds():
    assert add(1, 2) == 3

def test_negatives():
    assert add(-1, -2) == -3
`;
const GO = `package sum

func TestAdds(t *testing.T) {
	if Sum(1, 2) != 3 {
		t.Errorf("bad")
	}
}
`;
const RS = `fn sum(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::sum(1, 2), 3);
    }
}
`;

const change = (path: string, before: string, after: string) => ({ path, before, after });

describe("testWeakening (pure)", () => {
  it.each<[string, ReturnType<typeof change>[], RegExp | null]>([
    ["an unchanged test file", [change("src/sum.test.ts", JS, JS)], null],
    ["a fixed expectation (same count)", [change("src/sum.test.ts", JS, JS.replace("toBe(3)", "toBe(4)"))], null],
    ["a new test", [change("src/sum.test.ts", JS, JS.replace("});\n", `});\n  it("zero", () => {\n    expect(sum(0, 0)).toBe(0);\n  });\n`))], null],
    ["a code file outside the tests is never judged", [change("src/sum.ts", "it.skip(", "")], null],
    ["it.skip added", [change("src/sum.test.ts", JS, JS.replace('it("adds"', 'it.skip("adds"'))], /skip marker \(\.skip\(\) in src\/sum\.test\.ts/],
    ["describe.skip added", [change("src/sum.test.ts", JS, JS.replace("describe(", "describe.skip("))], /\.skip\(/],
    ["test.skipIf added", [change("test/a.ts", JS, JS.replace('it("adds"', 'it.skipIf(ci)("adds"'))], /\.skip\(/],
    ["xit", [change("src/sum.spec.js", JS, JS.replace('it("adds"', 'xit("adds"'))], /xit\/xdescribe\/fit/],
    ["xdescribe", [change("src/sum.spec.js", JS, JS.replace("describe(", "xdescribe("))], /xit\/xdescribe/],
    ["it.todo replacing a test", [change("__tests__/sum.js", JS, JS.replace(/it\("adds"[\s\S]*?\n  }\);\n/, 'it.todo("adds");\n'))], /\.todo\(.*removes 1 assertion/],
    ["it.only focusing one test", [change("src/sum.test.tsx", JS, JS.replace('it("adds"', 'it.only("adds"'))], /\.only\(/],
    ["a test deleted", [change("src/sum.test.ts", JS, JS.replace(/  it\("negatives"[\s\S]*?\n  }\);\n/, ""))], /removes 1 test case\(s\): src\/sum\.test\.ts \(2 → 1\)/],
    [
      "a test commented out with //",
      [
        change(
          "src/sum.test.ts",
          JS,
          JS.replace(/  it\("negatives"[\s\S]*?\n  }\);\n/, (m) => m.replace(/^/gm, "// ")),
        ),
      ],
      /removes 1 test case/,
    ],
    [
      "a test commented out with /* */",
      [
        change(
          "src/sum.test.ts",
          JS,
          JS.replace(/  it\("negatives"[\s\S]*?\n  }\);\n/, (m) => `/*\n${m}*/\n`),
        ),
      ],
      /removes 1 test case/,
    ],
    ["an assertion deleted", [change("src/sum.test.ts", JS, JS.replace("    expect(sum(-1, -2)).toBe(-3);\n", ""))], /removes 1 assertion/],
    ["the test file deleted", [change("src/sum.test.ts", JS, "")], /removes 2 test case/],
    [
      "a test moved to another file",
      [change("src/a.test.ts", JS, JS.replace(/  it\("negatives"[\s\S]*?\n  }\);\n/, "")), change("src/b.test.ts", "", `it("negatives", () => {\n  expect(sum(-1, -2)).toBe(-3);\n});\n`)],
      null,
    ],
    ["a skip already there, moved", [change("src/a.test.ts", 'it.skip("x", () => {});\n', ""), change("src/b.test.ts", "", 'it.skip("x", () => {});\n')], /skip marker/],
    ["a skip mentioned in a comment only", [change("src/sum.test.ts", JS, `// never use it.skip( here\n${JS}`)], null],
    ["@pytest.mark.skip", [change("tests/test_sum.py", PY, PY.replace("def test_adds", '@pytest.mark.skip(reason="later")\ndef test_adds'))], /@pytest\.mark\.skip/],
    ["@pytest.mark.xfail", [change("test_sum.py", PY, PY.replace("def test_adds", "@pytest.mark.xfail\ndef test_adds"))], /@pytest\.mark\.skip/],
    ["pytest.skip() inside", [change("pkg/sum_test.py", PY, PY.replace("    assert add(1, 2) == 3", '    pytest.skip("flaky")\n    assert add(1, 2) == 3'))], /pytest\.skip\(/],
    ["@unittest.skip", [change("tests/test_sum.py", PY, PY.replace("def test_adds", "@unittest.skip\ndef test_adds"))], /@unittest\.skip/],
    [
      "a Python test in a docstring",
      [
        change(
          "tests/test_sum.py",
          PY,
          PY.replace(/def test_negatives[\s\S]*$/, (m) => `"""\n${m}"""\n`),
        ),
      ],
      /removes 1 test case/,
    ],
    ["a Python test renamed out of collection", [change("tests/test_sum.py", PY, PY.replace("def test_negatives", "def negatives"))], /removes 1 test case/],
    ["a Python assertion removed", [change("tests/test_sum.py", PY, PY.replace("    assert add(-1, -2) == -3", "    pass"))], /removes 1 assertion/],
    ["t.Skip(", [change("sum_test.go", GO, GO.replace("\tif Sum", '\tt.Skip("later")\n\tif Sum'))], /t\.Skip\(/],
    ["t.Skipf(", [change("pkg/sum_test.go", GO, GO.replace("\tif Sum", '\tt.Skipf("%s", "x")\n\tif Sum'))], /t\.Skip\(/],
    ["a Go test renamed", [change("sum_test.go", GO, GO.replace("func TestAdds", "func testAdds"))], /removes 1 test case/],
    ["#[ignore] in a Rust module", [change("src/lib.rs", RS, RS.replace("    #[test]\n", "    #[test]\n    #[ignore]\n"))], /#\[ignore\]/],
    ["#[test] removed in Rust", [change("src/lib.rs", RS, RS.replace("    #[test]\n", ""))], /removes 1 test case/],
    [
      "@Disabled in JUnit",
      [change("src/test/java/SumTest.java", "@Test\nvoid adds() { assertEquals(3, sum(1, 2)); }\n", "@Disabled\n@Test\nvoid adds() { assertEquals(3, sum(1, 2)); }\n")],
      /@Disabled/,
    ],
    ["RSpec skip", [change("spec/sum_spec.rb", 'it "adds" do\n  expect(sum(1, 2)).to eq(3)\nend\n', 'it "adds" do\n  skip "later"\n  expect(sum(1, 2)).to eq(3)\nend\n')], /RSpec/],
    ["`pending` as a JS variable is not RSpec", [change("src/a.test.ts", JS, `${JS}pending.push(1);\n`)], null],
  ])("%s", (_n, changes, want) => {
    const got = testWeakening(changes);
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatch(want);
  });

  it("the reason tells the model what to do instead", () => {
    expect(testWeakening([change("a.test.ts", JS, "")])).toMatch(/never by skipping, deleting or commenting out tests/);
  });

  it.each<[string, boolean]>([
    ["src/a.test.ts", true],
    ["src/a.spec.mjs", true],
    ["test/helpers/x.ts", true],
    ["packages/web/__tests__/x.jsx", true],
    ["tests/test_x.py", true],
    ["x_test.go", true],
    ["src/lib.rs", true],
    ["src/test/java/FooTest.java", true],
    ["spec/foo_spec.rb", true],
    ["src/a.ts", false],
    ["test/fixtures/data.json", false],
    ["docs/testing.md", false],
    ["README.md", false],
  ])("isTestPath(%s) = %s", (path, want) => expect(isTestPath(path)).toBe(want));

  it("counts outside comments only", () => {
    expect(countTestFacts("a.test.ts", JS)).toMatchObject({ tests: 2, assertions: 2 });
    expect(countTestFacts("a.py", PY)).toMatchObject({ tests: 2, assertions: 2 });
    expect(countTestFacts("a_test.go", GO)).toMatchObject({ tests: 1, assertions: 1 });
    expect(countTestFacts("lib.rs", RS)).toMatchObject({ tests: 1, assertions: 1 });
    expect(stripComments("a.ts", "x(); // it.skip(\n/* it(\n*/ y();")).not.toMatch(/it/);
    expect(stripComments("a.py", "# def test_x\nx = 1 # xit(")).not.toMatch(/test_x|xit/);
  });
});
