//! Developer console sessions over in-memory fakes: only a secret key signs in, whatever else is
//! wrong gets the same refusal; a session is found by its token alone, ends when left idle or signed
//! out, and signing in again replaces it.

use payments_application::services::caller_of;
use payments_application::testing::TestPorts;
use payments_application::ApplicationError;
use payments_domain::account::{KeyKind, Mode};

#[test]
fn a_secret_key_opens_a_session_of_its_account_and_mode_and_nothing_else_does() {
    let ports = TestPorts::new();
    let (account, keys) = ports.account_service().create("Acme").unwrap();
    let sessions = ports.console_session_service();
    for (key, mode) in [(&keys.secret_test, Mode::Test), (&keys.secret_live, Mode::Live)] {
        let opened = sessions.sign_in(&format!(" {} ", key.reveal()), None).unwrap();
        assert_eq!((opened.session.account_id.clone(), opened.session.mode), (account.id.clone(), mode));
        let caller = caller_of(&opened.session);
        assert_eq!((caller.scope.mode, caller.key_kind), (mode, KeyKind::Secret));
        assert_eq!(sessions.resume(opened.token.reveal()).unwrap(), Some(opened.session.clone()));
        assert_ne!(opened.token.reveal(), opened.session.form_token);
    }
    let (start, last) = keys.secret_test.reveal().split_at(keys.secret_test.reveal().len() - 1);
    let unknown = format!("{start}{}", if last == "x" { "y" } else { "x" });
    for refused in [keys.public_test.reveal(), keys.public_live.reveal(), "", "nonsense", unknown.as_str()] {
        assert!(
            matches!(sessions.sign_in(refused, None), Err(ApplicationError::Unauthenticated)),
            "{refused} opened a session"
        );
    }
    assert_eq!(sessions.resume("no-such-token").unwrap(), None);
}

#[test]
fn a_session_ends_when_left_idle_or_signed_out_and_signing_in_again_replaces_it() {
    let ports = TestPorts::new();
    let (_, keys) = ports.account_service().create("Acme").unwrap();
    let sessions = ports.console_session_service();
    let first = sessions.sign_in(keys.secret_test.reveal(), None).unwrap();
    ports.clock.advance(3_000);
    let touched = sessions.resume(first.token.reveal()).unwrap().expect("still open");
    assert!(touched.last_seen_at > first.session.last_seen_at, "a request keeps it open");
    ports.clock.advance(3_000);
    assert!(sessions.resume(first.token.reveal()).unwrap().is_some(), "an hour after the last request, not the first");
    ports.clock.advance(3_600);
    assert_eq!(sessions.resume(first.token.reveal()).unwrap(), None, "left idle for an hour");

    let second = sessions.sign_in(keys.secret_test.reveal(), None).unwrap();
    let third = sessions.sign_in(keys.secret_test.reveal(), Some(second.token.reveal())).unwrap();
    assert_ne!(second.token.reveal(), third.token.reveal());
    assert_eq!(sessions.resume(second.token.reveal()).unwrap(), None, "the browser's old session ended");
    sessions.sign_out(third.token.reveal()).unwrap();
    assert_eq!(sessions.resume(third.token.reveal()).unwrap(), None);
    sessions.sign_out(third.token.reveal()).unwrap();

    let idle = sessions.sign_in(keys.secret_test.reveal(), None).unwrap();
    let active = sessions.sign_in(keys.secret_live.reveal(), None).unwrap();
    ports.clock.advance(3_000);
    sessions.resume(active.token.reveal()).unwrap();
    ports.clock.advance(700);
    assert_eq!(sessions.end_idle().unwrap(), 1);
    assert!(sessions.resume(active.token.reveal()).unwrap().is_some());
    assert_eq!(sessions.resume(idle.token.reveal()).unwrap(), None);
}
