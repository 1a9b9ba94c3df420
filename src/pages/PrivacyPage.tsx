import { LegalDocumentView } from '../components/LegalDocumentView';
import { privacyPolicy } from '../content/legal';

export default function PrivacyPage() {
  return <LegalDocumentView document={privacyPolicy} />;
}
