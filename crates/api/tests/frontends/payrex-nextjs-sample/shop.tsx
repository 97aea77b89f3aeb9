// The test shop's entry point, standing in for Next.js: it renders the sample's client component that
// the page names (`data-page`), with the client secret the server put in the page, as the sample's
// `page.tsx` and `redirect/page.tsx` do.
import { createRoot } from "react-dom/client";
import PaymentForm from "./src/app/PaymentForm";
import ConfirmationSection from "./src/app/redirect/ConfirmationSection";

const root = document.getElementById("root") as HTMLElement;
const clientSecret = root.dataset.clientSecret || "";
createRoot(root).render(
  root.dataset.page === "confirmation" ? (
    <ConfirmationSection paymentIntentClientSecret={clientSecret} />
  ) : (
    <PaymentForm paymentIntentClientSecret={clientSecret} />
  ),
);
