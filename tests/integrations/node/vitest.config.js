// globals: useMockllm() finds beforeAll/afterAll/beforeEach/afterEach as under jest.
export default { test: { globals: true, testTimeout: 60_000, hookTimeout: 70_000 } };
