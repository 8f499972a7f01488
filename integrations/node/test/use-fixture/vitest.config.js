export default { test: { include: ['use.test.js'] } };
