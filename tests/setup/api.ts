// Building an app on a fresh database takes well under a second alone, but several seconds beside
// another worker and a browser on two cores: more than jest's default 5 s (a project's own
// `testTimeout` is ignored by jest-circus). Files that need longer still set their own.
jest.setTimeout(30_000);
