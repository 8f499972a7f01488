// The helper's own tests; test/use-fixture/ is run by helper.test.js in a vitest of its own.
export default { test: { include: ['test/*.test.js'], testTimeout: 60_000, hookTimeout: 70_000 } };
