import { LegalDocumentView } from '../components/LegalDocumentView';
import { termsOfService } from '../content/legal';

export default function TermsPage() {
  return <LegalDocumentView document={termsOfService} />;
}
