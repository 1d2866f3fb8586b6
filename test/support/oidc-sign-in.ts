// The headless sign-in lives beside the local identity provider, where `npm run sign-in` uses it too.
export {
  CookieJar,
  signInHeadless,
  signInToPortal,
  type HeadlessSignIn,
  type HeadlessSignInOptions,
  type PortalSession,
} from "../../shared/hosts/local/identity-provider/headless-sign-in";
