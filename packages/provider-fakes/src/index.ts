export { FakeRoutes, bearerToken, startFakeServer } from './fake-server';
export type { FakeBehaviour, FakeHandler, FakeReply, FakeRequest, FakeServer, RecordedRequest } from './fake-server';
export { EVENTBRITE_FAKE_TOKENS, startFakeEventbrite } from './eventbrite';
export type {
  EventbriteAttendeeInput,
  EventbriteAttendeeJson,
  EventbriteEventInput,
  EventbriteEventJson,
  EventbriteEventStatus,
  EventbriteLimits,
  EventbriteSeedOptions,
  FakeEventbrite,
  FakeEventbriteAccount,
  FakeEventbriteOptions,
} from './eventbrite';
export { GITHUB_FAKE_LOGIN, GITHUB_FAKE_TOKENS, startFakeGithub } from './github';
export type { FakeGithubSeed } from './github';
export { GMAIL_FAKE_TOKENS, GMAIL_FAKE_USER, parseRawMessage, startFakeGmail } from './gmail';
export type { FakeGmailMessage } from './gmail';
export { GOOGLE_CALENDAR_FAKE_TOKENS, GOOGLE_CALENDAR_FAKE_USER, startFakeGoogleCalendar } from './google-calendar';
export type { FakeCalendarEvent } from './google-calendar';
export type { GoogleFakeTokens } from './google-common';
export { HUBSPOT_FAKE_TOKENS, startFakeHubspot } from './hubspot';
export type { FakeOAuthApp, FakeOAuthControl } from './platform-oauth';
export type { FakeHubspot, FakeHubspotOptions } from './hubspot';
export type {
  AttendanceState,
  FakeHubspotPortal,
  HubspotContactInput,
  HubspotContactJson,
  HubspotEventInput,
  HubspotLimits,
  HubspotMarketingEventJson,
  HubspotParticipationJson,
  HubspotSeedOptions,
} from './hubspot-marketing';
export { JIRA_FAKE_CREDENTIALS, JIRA_FAKE_USERS, startFakeJira } from './jira';
export type { FakeJiraIssue } from './jira';
export { JSON_API_FAKE_TOKENS, startFakeJsonApi } from './json-api';
export { LINEAR_FAKE_TOKENS, linearFakeId, startFakeLinear } from './linear';
export type { LinearFakeComment, LinearFakeIssue, LinearFakeTeam, LinearFakeUser } from './linear';
export { ANTHROPIC_FAKE_KEYS, startFakeAnthropic } from './model-vendors/anthropic';
export { FAKE_IMAGE_TOKENS, fakeEmbedding, fakeTokenCount } from './model-vendors/answer';
export { parseModelFault } from './model-vendors/faults';
export { GEMINI_FAKE_KEYS, startFakeGemini } from './model-vendors/gemini';
export { fakeModelInfo } from './model-vendors/models';
export type { FakeModelInfo } from './model-vendors/models';
export { OPENAI_FAKE_KEYS, startFakeOpenAI } from './model-vendors/openai';
export { OPENAI_COMPATIBLE_FAKE_KEYS, startFakeOpenAICompatible } from './model-vendors/openai-compatible';
export type { FakeOpenAICompatibleOptions, OpenAICompatibleFlavour } from './model-vendors/openai-compatible';
export type {
  FakeFault,
  FakeFaultKind,
  FakeFaultRule,
  FakeFinishReason,
  FakeMatch,
  FakeOperation,
  FakeRateLimits,
  FakeScript,
  FakeStreamErrorKind,
  FakeToolCall,
  FakeUsage,
  FakeVendor,
  FakeVendorName,
  FakeVendorOptions,
} from './model-vendors/types';
export { NOTION_FAKE_TOKENS, startFakeNotion } from './notion';
export { DEFAULT_WEB_PAGES, SEARCH_FAKE_KEYS, startFakeSearchEngine } from './search-engines';
export type { FakeSearchEngine, FakeSearchEngineName, FakeSearchEngineOptions, FakeSearchFault, FakeWebPage } from './search-engines';
export { SLACK_FAKE_BOT, SLACK_FAKE_TOKENS, startFakeSlack } from './slack';
export type { FakeSlackSeed } from './slack';
export { ZENDESK_FAKE, startFakeZendesk } from './zendesk';
export { ZOOM_FAKE_CREDENTIALS, startFakeZoom } from './zoom';
export type {
  FakeZoom,
  FakeZoomAccount,
  FakeZoomOptions,
  ZoomCategory,
  ZoomLimits,
  ZoomParticipantJson,
  ZoomRegistrantInput,
  ZoomRegistrantJson,
  ZoomRegistrantStatus,
  ZoomSeedOptions,
  ZoomWebinarInput,
  ZoomWebinarJson,
} from './zoom';
export { createFakeClock } from './platform-clock';
export type { FakeClock, FakeClockOptions } from './platform-clock';
export type { FaultControl, FaultKind, FaultTarget } from './platform-faults';
export type { PlatformLoggedRequest } from './platform-server';
