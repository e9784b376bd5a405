export { FakeRoutes, bearerToken, startFakeServer } from './fake-server';
export type { FakeHandler, FakeReply, FakeRequest, FakeServer, RecordedRequest } from './fake-server';
export { GITHUB_FAKE_LOGIN, GITHUB_FAKE_TOKENS, startFakeGithub } from './github';
export type { FakeGithubSeed } from './github';
export { SLACK_FAKE_BOT, SLACK_FAKE_TOKENS, startFakeSlack } from './slack';
export type { FakeSlackSeed } from './slack';
