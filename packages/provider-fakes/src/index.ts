export { FakeRoutes, bearerToken, startFakeServer } from './fake-server';
export type { FakeHandler, FakeReply, FakeRequest, FakeServer, RecordedRequest } from './fake-server';
export { GITHUB_FAKE_TOKENS, startFakeGithub } from './github';
