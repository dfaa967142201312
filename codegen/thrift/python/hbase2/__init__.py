__all__ = ['ttypes', 'constants', 'THBaseService']
