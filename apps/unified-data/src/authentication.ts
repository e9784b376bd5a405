// tsoa's generated routes import `expressAuthentication` from this module.
export { expressAuthentication } from '@patchbay/auth';
